#!/usr/bin/env python3
"""Replay expr's test cases against DynamoDB Local and report every case
whose expected outcome or message differs from what DynamoDB Local says.

The expected messages in expr's tests were taken from DynamoDB Local; this
script is how they were checked and how to re-check them after a change:

    java -Djava.library.path=<lib>/DynamoDBLocal_lib -jar <lib>/DynamoDBLocal.jar -inMemory -port 8124 &
    EXPR_DUMP_CASES=/tmp/cases.jsonl go test -count=1 ./dynamotest/internal/expr/
    python3 dynamotest/internal/expr/testdata/replay_ddblocal.py /tmp/cases.jsonl
    python3 dynamotest/internal/expr/testdata/replay_ddblocal.py dynamotest/internal/expr/testdata/ddblocal_cases.jsonl

A second argument names a file to receive the cases DynamoDB Local agrees
with (how the random cases in ddblocal_cases.jsonl were chosen).

ddblocal_cases.jsonl holds further cases (mostly malformed expressions and
pairs of errors, to pin down which one DynamoDB reports first) with the
outcome DynamoDB Local gave; TestCasesConfirmedByDynamoDBLocal checks the
fake against them.

Needs boto3. Uses tables "tbl" (p S, c N) and "rtt" (kp S) on
http://localhost:8124 (DDBL_ENDPOINT overrides), creating them if missing.
"""
import base64, functools, json, os, sys
import boto3
from botocore.exceptions import ClientError

ddb = boto3.client('dynamodb', endpoint_url=os.environ.get('DDBL_ENDPOINT', 'http://localhost:8124'),
                 region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='x')

def create(name, keys):
    try:
        ddb.create_table(TableName=name,
            KeySchema=[{'AttributeName': k, 'KeyType': kt} for k, _, kt in keys],
            AttributeDefinitions=[{'AttributeName': k, 'AttributeType': t} for k, t, _ in keys],
            BillingMode='PAY_PER_REQUEST')
    except ClientError:
        pass

create('tbl', [('p', 'S', 'HASH'), ('c', 'N', 'RANGE')])
create('rtt', [('kp', 'S', 'HASH')])

def run(op, table='tbl', **kw):
    try:
        r = getattr(ddb, op)(TableName=table, **kw)
        r.pop('ResponseMetadata', None)
        return 'OK ' + json.dumps(r, default=lambda o: base64.b64encode(o).decode())
    except ClientError as e:
        return 'ERR ' + e.response['Error']['Code'] + ': ' + e.response['Error']['Message']

def b64fix(v):
    # boto3 low-level wants bytes for B/BS
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == 'B': out[k] = base64.b64decode(x)
            elif k == 'BS': out[k] = [base64.b64decode(y) for y in x]
            else: out[k] = b64fix(x)
        return out
    if isinstance(v, list): return [b64fix(x) for x in v]
    return v
K = {'kp': {'S': 'k'}}
# The items cases with an empty "item" use: condItem and projItem in the Go tests.
DEFAULT_ITEMS = {
    'condition': '{"p": {"S": "a"}, "c": {"N": "1"}, "x": {"N": "5"}, "s": {"S": "héllo"}, "b": {"B": "AQID"}, "l": {"L": [{"N": "1"}, {"S": "two"}, {"N": "3"}]}, "m": {"M": {"k": {"S": "v"}}}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2"]}, "t": {"BOOL": true}, "n": {"NULL": true}, "u": {"S": "a😀"}, "e": {"S": ""}}',
    'projection': '{"a": {"N": "1"}, "s": {"S": "hello"}, "l": {"L": [{"S": "w"}, {"S": "x"}, {"M": {"y": {"N": "1"}, "z": {"N": "2"}}}, {"S": "z"}]}, "m": {"M": {"k": {"S": "v"}, "n": {"M": {"deep": {"N": "3"}, "other": {"N": "4"}}}}}, "ss": {"SS": ["a", "b"]}, "a.b": {"S": "dotted"}}',
}
run = functools.partial(run, table='rtt')
bad = 0
matching = []
for line in open(sys.argv[1]):
    c = json.loads(line)
    kind = c['kind']
    if not c.get('item') and kind in DEFAULT_ITEMS:
        c['item'] = DEFAULT_ITEMS[kind]
    vals = b64fix(json.loads(c['values'])) if c.get('values') else None
    names = json.loads(c['names']) if c['names'] else None
    if kind == 'condition':
        item = b64fix(json.loads(c['item']))
        item.update(K)
        run('put_item', Item=item)
        kw = {'Key': K, 'ConditionExpression': c['expr'], 'UpdateExpression': 'SET #zzz = :zzz'}
        kw['ExpressionAttributeValues'] = dict(vals or {}); kw['ExpressionAttributeValues'][':zzz'] = {'N': '0'}
        kw['ExpressionAttributeNames'] = dict(names or {}); kw['ExpressionAttributeNames']['#zzz'] = 'zzz'
        r = run('update_item', **kw)
        got = 'true' if r.startswith('OK') else ('false' if 'ConditionalCheckFailed' in r else r.split(': ', 1)[1])
    elif kind == 'update':
        run('delete_item', Key=K)
        if c['item']:
            item = b64fix(json.loads(c['item'])); item.update(K)
            run('put_item', Item=item)
        kw = {'Key': K, 'UpdateExpression': c['expr'], 'ReturnValues': 'ALL_NEW'}
        if vals is not None: kw['ExpressionAttributeValues'] = vals
        if names is not None: kw['ExpressionAttributeNames'] = names
        r = run('update_item', **kw)
        if r.startswith('OK'):
            attrs = json.loads(r[3:]).get('Attributes', {})
            for k in K: attrs.pop(k, None)
            got = attrs
        else:
            got = r.split(': ', 1)[1]
        want = c['want']
        if isinstance(got, dict):
            try:
                w = json.loads(want)
            except Exception:
                w = want
            # compare normalized (sets unordered)
            def norm(x):
                if isinstance(x, dict):
                    return {k: (sorted(v) if k in ('SS','NS','BS') else norm(v)) for k, v in x.items()}
                if isinstance(x, list): return [norm(y) for y in x]
                return x
            got = 'MATCH' if isinstance(w, dict) and norm(w) == norm(got) else json.dumps(got)
            if got == 'MATCH': got = want
    elif kind == 'projection':
        item = b64fix(json.loads(c['item'])); item.update(K)
        run('put_item', Item=item)
        kw = {'Key': K, 'ProjectionExpression': c['expr']}
        if names is not None: kw['ExpressionAttributeNames'] = names
        r = run('get_item', **kw)
        if r.startswith('OK'):
            got = json.dumps(json.loads(r[3:]).get('Item', {}), sort_keys=True)
            try:
                if json.loads(got) == json.loads(c['want']): got = c['want']
            except Exception: pass
        else:
            got = r.split(': ', 1)[1]
    elif kind == 'key':
        kw = {'KeyConditionExpression': c['expr']}
        if vals is not None: kw['ExpressionAttributeValues'] = vals
        if names is not None: kw['ExpressionAttributeNames'] = names
        r = run('query', table='tbl', **kw)
        got = 'ok' if r.startswith('OK') else r.split(': ', 1)[1]
        if c['want'].startswith('ok') and got == 'ok': got = c['want']
    if got == c['want']:
        matching.append(line.rstrip('\n'))
    if got != c['want']:
        bad += 1
        print('MISMATCH', c.get('test', c['kind']), repr(c['expr'][:200]), '\n   fake :', c['want'][:300], '\n   local:', str(got)[:300])
if len(sys.argv) > 2:
    # Keep the cases DynamoDB Local agrees with, to add to ddblocal_cases.jsonl.
    with open(sys.argv[2], 'w') as f:
        f.write('\n'.join(matching) + '\n')
print('checked; mismatches:', bad)
sys.exit(1 if bad else 0)
