package dynamotest_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

// slowStatement is how long one ExecuteStatement may keep the fake busy.
// DynamoDB answers a request in milliseconds; a statement the fake took
// longer over would let one caller hold a core of a shared server.
const slowStatement = 100 * time.Millisecond

// fuzzTimesVar names a file to which FuzzExecuteStatement appends each new
// slowest statement its process meets, for a person to read after a run
// (the fuzzing workers are processes of their own, whose logs go nowhere):
//
//	DYNAMOTEST_FUZZ_TIMES=/tmp/times go test -run '^$' -fuzz FuzzExecuteStatement \
//	    -fuzztime 10m -parallel 1 ./dynamotest/
//	sort -k4,4n /tmp/times | tail -1    # the most CPU; -k2,2n: the longest wall time
const fuzzTimesVar = "DYNAMOTEST_FUZZ_TIMES"

// FuzzExecuteStatement sends arbitrary statements, with up to three
// parameters, to ExecuteStatement on a table holding a few items and an
// index. Whatever the statement, the answer is a result or an error of
// DynamoDB's (an API error, never a panic or a bare Go error), and, while
// fuzzing, the call costs under 100 ms of CPU: the statement's length is
// capped at 8 KB and parsing is linear, so no statement can keep the
// server busy. The bound is checked only while fuzzing (-fuzz), on CPU
// time where the platform gives it per thread, so the seed corpus that
// every test run replays never fails on a slow machine.
func FuzzExecuteStatement(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM jobs WHERE pk = 'JOB#1' AND sk = 'META'`,
		`SELECT pk, body, tags[0], m.k FROM jobs WHERE pk = ? AND begins_with(sk, 'M') OR NOT (n BETWEEN 1 AND 3)`,
		`SELECT * FROM jobs."all" WHERE status = 'QUEUED' AND updated > 1 ORDER BY updated DESC`,
		`SELECT * FROM jobs WHERE pk IN ['JOB#1', 'JOB#2'] AND (size(body) > 3 OR contains(tags, 'x')) AND owner IS NOT MISSING`,
		`INSERT INTO jobs VALUE {'pk': ?, 'sk': 'META', 'l': [1, 'two', {'m': <<1, 2>>}], 'b': TRUE, 'z': NULL}`,
		`UPDATE jobs SET n = n + 1 SET l = list_append(l, [3]) REMOVE body WHERE pk = 'JOB#1' AND sk = 'META' RETURNING ALL NEW *`,
		`UPDATE jobs SET tags = set_add(tags, <<'y'>>) WHERE pk = 'JOB#2' AND sk = 'META' AND attribute_type(tags, 'SS')`,
		`DELETE FROM jobs WHERE pk = 'JOB#1' AND sk = 'META' AND n = ? RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM jobs WHERE pk = 'JOB#1' AND sk = 'META' AND n = 1)`,
		`SELECT * FROM jobs WHERE ((((pk = 'a'))) OR n = 1) AND NOT NOT n = 2`,
		`SELECT * FROM jobs WHERE n = 0` + strings.Repeat(" OR n = 1", 400),
		`SELECT * FROM jobs WHERE ` + strings.Repeat("size(", 300) + "n" + strings.Repeat(")", 300) + " > 1",
		`SELECT * FROM jobs WHERE n = 0` + strings.Repeat(" OR n = 1", 1000), // over 8 KB: refused unparsed
	} {
		f.Add(s, uint8(1))
	}
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	params := []types.AttributeValue{
		&types.AttributeValueMemberS{Value: "JOB#1"},
		&types.AttributeValueMemberN{Value: "1"},
		&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberSS{Value: []string{"a"}}}},
	}
	f.Fuzz(func(t *testing.T, statement string, nParams uint8) {
		// A fresh table for every input, so an input's answer does not
		// depend on what earlier ones wrote, and a failure replays alone.
		db := newDB(t, jobs)
		for _, it := range []item{
			{"pk": S("JOB#1"), "sk": S("META"), "status": S("QUEUED"), "updated": N("2"), "n": N("1"), "body": S("payload"),
				"tags": &types.AttributeValueMemberSS{Value: []string{"x"}}, "l": &types.AttributeValueMemberL{},
				"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": S("v")}}},
			{"pk": S("JOB#2"), "sk": S("META"), "status": S("QUEUED"), "updated": N("3"), "owner": S("ann")},
		} {
			put(t, db, "jobs", it)
		}
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(statement)}
		if n := int(nParams) % (len(params) + 1); n > 0 {
			in.Parameters = params[:n]
		}
		wall, cpu, err := timeCall(func() error {
			_, err := db.ExecuteStatement(ctx, in)
			return err
		})
		var ae smithy.APIError
		require.Truef(t, err == nil || errors.As(err, &ae), "%q: error %v (%T) is not an API error", statement, err, err)
		if !fuzzing {
			return
		}
		recordFuzzTime(wall, cpu, statement)
		took := cpu
		if cpu < 0 {
			// No per-thread CPU clock here: the least wall time of a few
			// more runs, so that one wait for a core does not count.
			for i := 0; i < 3 && took > slowStatement; i++ {
				w, _, _ := timeCall(func() error { _, err := db.ExecuteStatement(ctx, in); return err })
				took = min(took, w)
			}
		}
		require.LessOrEqualf(t, took, slowStatement, "%q kept the server busy for %v (wall %v)", statement, took, wall)
	})
}

// timeCall runs fn on one OS thread and returns its wall time and the CPU
// time that thread spent (-1 where the platform does not give it).
func timeCall(fn func() error) (wall, cpu time.Duration, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPU()
	start := time.Now()
	err = fn()
	wall = time.Since(start)
	cpu = -1
	if c1, ok1 := threadCPU(); ok && ok1 {
		cpu = c1 - c0
	}
	return wall, cpu, err
}

var fuzzTimes struct {
	sync.Mutex
	wall, cpu time.Duration
}

// recordFuzzTime appends a statement to the file fuzzTimesVar names when
// it is the slowest yet, by wall or CPU time, in this process.
func recordFuzzTime(wall, cpu time.Duration, statement string) {
	path := os.Getenv(fuzzTimesVar)
	if path == "" {
		return
	}
	fuzzTimes.Lock()
	defer fuzzTimes.Unlock()
	if wall <= fuzzTimes.wall && cpu <= fuzzTimes.cpu {
		return
	}
	fuzzTimes.wall, fuzzTimes.cpu = max(fuzzTimes.wall, wall), max(fuzzTimes.cpu, cpu)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "wall-us %d cpu-us %d pid %d len %d %q\n", wall.Microseconds(), cpu.Microseconds(), os.Getpid(), len(statement), statement)
}
