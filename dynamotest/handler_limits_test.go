package dynamotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveWith serves api through a handler built with opts and returns the
// server's URL.
func serveWith(t *testing.T, api *apiDouble, opts ...func(*HandlerOptions)) string {
	t.Helper()
	ts := httptest.NewServer(NewHandler(api, opts...))
	t.Cleanup(ts.Close)
	return ts.URL
}

// putBody is a PutItem request body of about n bytes.
func putBody(n int) string {
	return `{"TableName":"jobs","Item":{"pk":{"S":"a"},"pad":{"S":"` + strings.Repeat("x", n) + `"}}}`
}

func apiErrorCode(t *testing.T, err error) string {
	t.Helper()
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	return ae.ErrorCode()
}

func TestHandlerRefusesABodyOverTheLimitWith413(t *testing.T) {
	d := &apiDouble{}
	url := serveWith(t, d, MaxBodyBytes(4096))

	resp, body := post(t, url, "DynamoDB_20120810.PutItem", putBody(8192))
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Contains(t, body, "SerializationException")
	assert.Contains(t, body, "4096 bytes")
	assert.Nil(t, d.inputs["PutItem"], "the operation ran on a body over the limit")

	resp, _ = post(t, url, "DynamoDB_20120810.PutItem", putBody(1024))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a body within the limit")
}

func TestHandlerRefusesAChunkedBodyOverTheLimit(t *testing.T) {
	url := serveWith(t, &apiDouble{}, MaxBodyBytes(4096))
	// io.MultiReader hides the length, so the body is sent chunked and the
	// limit is found while reading.
	req, err := http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(putBody(8192))))
	require.NoError(t, err)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// blockingPuts is an apiDouble whose PutItem waits until release is closed,
// so the requests in flight hold their bodies as long as a test needs.
func blockingPuts(entered chan<- struct{}, release <-chan struct{}) *apiDouble {
	return &apiDouble{respond: func(op string, _ any) (any, error) {
		if op == "PutItem" {
			entered <- struct{}{}
			<-release
		}
		return nil, nil
	}}
}

func TestHandlerMemoryBudgetThrottlesBodiesBeyondItAndFreesItAfterwards(t *testing.T) {
	entered, release := make(chan struct{}, 8), make(chan struct{})
	url := serveWith(t, blockingPuts(entered, release), MaxBodyBytes(48<<10), MemoryBudget(64<<10))

	// The first 40 KB body is held in flight; a second one would pass the
	// 64 KB budget.
	first := make(chan *http.Response, 1)
	go func() {
		resp, _ := post(t, url, "DynamoDB_20120810.PutItem", putBody(40<<10))
		first <- resp
	}()
	<-entered
	resp, body := post(t, url, "DynamoDB_20120810.PutItem", putBody(40<<10))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, "ThrottlingException", "a body beyond the budget is throttled, so SDKs retry it")
	resp, _ = post(t, url, "DynamoDB_20120810.GetItem", `{"TableName":"jobs","Key":{"pk":{"S":"a"}}}`)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a small request still fits beside the held one")

	close(release)
	assert.Equal(t, http.StatusOK, (<-first).StatusCode)
	go func() {
		for range entered {
		}
	}()
	resp, _ = post(t, url, "DynamoDB_20120810.PutItem", putBody(40<<10))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the budget is free again once the held request is answered")
}

func TestHandlerMemoryBudgetBoundsManyConcurrentLargeBodies(t *testing.T) {
	const budgetBytes = 1 << 20
	h := NewHandler(&apiDouble{}, MaxBodyBytes(256<<10), MemoryBudget(budgetBytes)).(*protocolHandler)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	client := NewClient(ts.URL)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("jobs"),
				Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"},
					"pad": &types.AttributeValueMemberS{Value: strings.Repeat("x", 200<<10)}}})
			code := "ok"
			if err != nil {
				var ae smithy.APIError
				if errors.As(err, &ae) {
					code = ae.ErrorCode()
				} else {
					code = err.Error()
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, h.budget.peak, int64(budgetBytes), "bodies held at once")
	assert.Zero(t, h.budget.used, "every reservation is released")
	assert.Equal(t, 40, codes["ok"]+codes["ThrottlingException"], "answers: %v", codes)
	assert.Positive(t, codes["ok"])
}

func TestHandlerPanicAnswersInternalServerErrorWithoutStackAndLogsIt(t *testing.T) {
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, nil))
	url := serveWith(t, &apiDouble{panics: "disk on fire"}, Logger(logger))
	client := NewClient(url)

	_, err := client.GetItem(context.Background(), getJob)
	var ise *types.InternalServerError
	require.ErrorAs(t, err, &ise)
	assert.Contains(t, ise.ErrorMessage(), "GetItem")
	assert.NotContains(t, ise.ErrorMessage(), "goroutine", "the answer carries a stack")
	assert.NotContains(t, ise.ErrorMessage(), ".go:", "the answer names source files")
	assert.NotContains(t, ise.ErrorMessage(), "disk on fire", "the answer carries the panic's value")

	assert.Contains(t, logged.String(), "disk on fire")
	assert.Contains(t, logged.String(), "goroutine", "the log has the stack")
	assert.Contains(t, logged.String(), "operation=GetItem")
}

func TestHandlerRequireCredentialsRefusesUnsignedRequests(t *testing.T) {
	url := serveWith(t, &apiDouble{}, RequireCredentials())

	resp, body := post(t, url, "DynamoDB_20120810.ListTables", `{}`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, "MissingAuthenticationTokenException")

	_, err := NewClient(url).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.NoError(t, err, "a signed request with any key is accepted")

	anonymous := NewClient(url, func(o *dynamodb.Options) { o.Credentials = aws.AnonymousCredentials{} })
	_, err = anonymous.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.Equal(t, "MissingAuthenticationTokenException", apiErrorCode(t, err))
}

func TestHandlerKeysVerifySignatures(t *testing.T) {
	db := New()
	ts := httptest.NewServer(NewHandler(db, Keys(map[string]string{"AKIDTEST": "s3cret"})))
	t.Cleanup(ts.Close)
	withKey := func(id, secret string) *dynamodb.Client {
		return NewClient(ts.URL, func(o *dynamodb.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider(id, secret, "")
		})
	}
	ctx := context.Background()

	_, err := withKey("AKIDTEST", "s3cret").CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	require.NoError(t, err, "a request signed with a configured key")

	_, err = withKey("AKIDTEST", "wrong").ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Equal(t, "InvalidSignatureException", apiErrorCode(t, err))
	_, err = withKey("AKIDOTHER", "s3cret").ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Equal(t, "UnrecognizedClientException", apiErrorCode(t, err))
	_, err = withKey("AKIDTEST", "wrong").DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("jobs")})
	assert.Error(t, err)
	out, err := withKey("AKIDTEST", "s3cret").ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{"jobs"}, out.TableNames, "a badly signed request changed nothing")

	// A signature from more than 15 minutes ago (by the DB's clock) has
	// expired, as in DynamoDB.
	db.Advance(20 * time.Minute)
	_, err = withKey("AKIDTEST", "s3cret").ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Equal(t, "InvalidSignatureException", apiErrorCode(t, err))
}

func TestHandlerKeysRefuseATamperedBody(t *testing.T) {
	ts := httptest.NewServer(NewHandler(&apiDouble{}, Keys(map[string]string{"AKIDTEST": "s3cret"})))
	t.Cleanup(ts.Close)
	// A transport that changes the body after the client signed it.
	tamper := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		b = bytes.Replace(b, []byte(`"jobs"`), []byte(`"evil"`), 1)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		return http.DefaultTransport.RoundTrip(r)
	})
	client := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(ts.URL), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "s3cret", ""),
		Retryer:     aws.NopRetryer{}, HTTPClient: &http.Client{Transport: tamper}})
	_, err := client.GetItem(context.Background(), getJob)
	assert.Equal(t, "InvalidSignatureException", apiErrorCode(t, err))
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestServerCutsOffATrickledBody(t *testing.T) {
	srv := NewUnstartedServer()
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	body := putBody(64)
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: %d\r\n\r\n", len(body))
	require.NoError(t, err)
	// One byte every 50 ms would take seconds; the server must give up on
	// it long before, and answer or close the connection.
	cut := false
	for i := 0; i < len(body) && !cut; i++ {
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			cut = true
			break
		}
		_ = conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		var b [512]byte
		if n, err := conn.Read(b[:]); n > 0 || isClosed(err) {
			cut = true // answered (408) or closed
		}
	}
	assert.True(t, cut, "the server read the whole trickled body")
}

// isClosed reports whether a read error means the peer closed the
// connection (rather than the read deadline passing).
func isClosed(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return err != nil
}

func TestServerTimeoutsAreSet(t *testing.T) {
	srv := NewUnstartedServer()
	assert.Positive(t, srv.Config.ReadHeaderTimeout)
	assert.Positive(t, srv.Config.ReadTimeout)
	assert.Positive(t, srv.Config.IdleTimeout)
	srv.Start()
	defer srv.Close()
	assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), "the server listens on loopback: %s", srv.URL)
}

// TestHandlerMemoryBudgetBoundsTheHeapOfRequestsInFlight: the budget holds
// for the memory the requests in flight hold, each body and the input
// decoded from it, not for the bodies alone (which let the heap reach about
// twice the budget). The heap is the process's: what the test's own
// clients and earlier tests' goroutines allocate meanwhile is counted too,
// so the least growth of three rounds is held to the budget (a handler that
// held more would exceed it in every round).
func TestHandlerMemoryBudgetBoundsTheHeapOfRequestsInFlight(t *testing.T) {
	const budgetBytes = 4 << 20
	body := putBody(400 << 10) // one string, shared by every request
	least := int64(math.MaxInt64)
	for range 3 {
		held, grown := heapOfRequestsInFlight(t, body, budgetBytes)
		t.Logf("%d requests held %d bytes of heap", held, grown)
		least = min(least, grown)
	}
	assert.LessOrEqualf(t, least, int64(budgetBytes), "the requests held %d bytes of heap at the least; the budget is %d", least, budgetBytes)
}

// heapOfRequestsInFlight sends 24 PutItems of body to a handler with the
// budget whose operation holds them, and returns how many it held and how
// much the heap grew while it held them.
func heapOfRequestsInFlight(t *testing.T, body string, budgetBytes int64) (int, int64) {
	entered, release := make(chan struct{}, 64), make(chan struct{})
	ts := httptest.NewServer(NewHandler(blockingPuts(entered, release), MaxBodyBytes(512<<10), MemoryBudget(budgetBytes)))
	defer ts.Close()
	// A client of its own, whose connections close with the round, so no
	// round starts with another's buffers still live.
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	var before runtime.MemStats
	// Twice: a sync.Pool keeps what it held through one collection.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)

	const requests = 24
	answered := make(chan int, requests)
	for range requests {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
			resp, err := client.Do(req)
			if err != nil {
				answered <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answered <- resp.StatusCode
		}()
	}
	// Every request is either held in flight or answered (throttled).
	held, throttled := 0, 0
	for held+throttled < requests {
		select {
		case <-entered:
			held++
		case code := <-answered:
			require.Equal(t, http.StatusBadRequest, code, "a request beyond the budget is throttled")
			throttled++
		}
	}
	var during runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&during)
	close(release)
	for range held {
		assert.Equal(t, http.StatusOK, <-answered)
	}

	require.Positive(t, held)
	require.Positive(t, throttled)
	return held, int64(during.HeapAlloc) - int64(before.HeapAlloc)
}
