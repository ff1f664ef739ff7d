package dynamotest

import (
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
