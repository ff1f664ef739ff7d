package dynamotest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tokenLedger remembers TransactWriteItems calls by ClientRequestToken for
// DynamoDB's ten-minute window. It is locked only to look a token up or
// record one, never across a transaction, so transactions on unrelated
// tables still run in parallel; and tokens expire from the front of a queue
// kept in the order they were recorded, so each call costs O(expired), not
// O(tokens remembered).
type tokenLedger struct {
	mu      sync.Mutex
	byToken map[string]*txToken
	order   []*txToken // finished calls, oldest first, from head on
	head    int
}

// txToken is one call's token: in flight until its transaction ends, then
// the output a replay returns.
type txToken struct {
	token    string
	sum      [32]byte
	at       time.Time
	inFlight bool
	out      *dynamodb.TransactWriteItemsOutput
}

// begin looks token up at now. A finished call with the same parameters is
// replayed (its output, with nothing applied again); other parameters are an
// IdempotentParameterMismatchException; a call still running is a
// TransactionInProgressException, as DynamoDB answers. Otherwise the token is
// marked in flight and done must be called once the transaction ends, with
// its output, or nil when it failed (the token is then forgotten, so the
// call can be retried).
func (l *tokenLedger) begin(token string, sum [32]byte, now time.Time) (replay *dynamodb.TransactWriteItemsOutput, done func(*dynamodb.TransactWriteItemsOutput), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(now)
	if tok := l.byToken[token]; tok != nil {
		switch {
		case tok.sum != sum:
			return nil, nil, &types.IdempotentParameterMismatchException{Message: aws.String("The request uses the same client token as a previous, but non-identical request.")}
		case tok.inFlight:
			return nil, nil, &types.TransactionInProgressException{Message: aws.String("The transaction with the given request token is already in progress.")}
		}
		return &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: tok.out.ConsumedCapacity}, nil, nil
	}
	if l.byToken == nil {
		l.byToken = make(map[string]*txToken)
	}
	tok := &txToken{token: token, sum: sum, inFlight: true}
	l.byToken[token] = tok
	return nil, func(out *dynamodb.TransactWriteItemsOutput) { l.finish(tok, out, now) }, nil
}

func (l *tokenLedger) finish(tok *txToken, out *dynamodb.TransactWriteItemsOutput, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if out == nil {
		delete(l.byToken, tok.token)
		return
	}
	tok.inFlight, tok.out, tok.at = false, out, at
	l.order = append(l.order, tok)
}

// expire forgets the tokens recorded a window or more before now. The queue
// is in recording order; a clock set backwards only delays expiry.
func (l *tokenLedger) expire(now time.Time) {
	for l.head < len(l.order) && now.Sub(l.order[l.head].at) >= tokenWindow {
		tok := l.order[l.head]
		if l.byToken[tok.token] == tok {
			delete(l.byToken, tok.token)
		}
		l.order[l.head] = nil
		l.head++
	}
	// Reclaim the expired front once it is half the queue: amortised O(1).
	if l.head > 0 && l.head >= len(l.order)/2 {
		l.order = append(l.order[:0], l.order[l.head:]...)
		l.head = 0
	}
}

// encodeToken appends a finished call's token as a persistent DB keeps it
// (in the transaction's journal record, and in snapshots): the token, the
// parameters' fingerprint, when it was first called, and the consumed
// capacity a replay answers with.
func encodeToken(b []byte, token string, sum [32]byte, at time.Time, consumed []types.ConsumedCapacity) []byte {
	b = appendString(b, token)
	b = appendString(b, string(sum[:]))
	b = appendTime(b, at)
	js, _ := json.Marshal(consumed) // plain data: it cannot fail
	return appendString(b, string(js))
}

// restore remembers a finished call read back from the journal or a
// snapshot. Records come in the order the calls finished, which keeps the
// expiry queue in order.
func (l *tokenLedger) restore(r *reader) {
	token, sum, at, js := r.string(), r.string(), r.time(), r.string()
	if r.err != nil {
		return
	}
	tok := &txToken{token: token, at: at, out: &dynamodb.TransactWriteItemsOutput{}}
	if len(sum) != len(tok.sum) {
		r.err = errors.New("a client request token with a damaged fingerprint")
		return
	}
	copy(tok.sum[:], sum)
	if err := json.Unmarshal([]byte(js), &tok.out.ConsumedCapacity); err != nil {
		r.err = fmt.Errorf("a client request token's consumed capacity: %v", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byToken == nil {
		l.byToken = make(map[string]*txToken)
	}
	l.byToken[token] = tok
	l.order = append(l.order, tok)
}

// live returns every finished call still inside its window at now, each
// encoded as restore reads it, after tag.
func (l *tokenLedger) live(now time.Time, tag byte) [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(now)
	var out [][]byte
	for _, tok := range l.order[l.head:] {
		if l.byToken[tok.token] == tok {
			out = append(out, encodeToken([]byte{tag}, tok.token, tok.sum, tok.at, tok.out.ConsumedCapacity))
		}
	}
	return out
}
