package dynamotest

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashChildEnv, set to a directory, makes TestCrashChildServer serve a
// persistent DB on it over HTTP until it is killed: the server the crash
// test kills.
const crashChildEnv = "TABLEKIT_DYNAMOTEST_CRASH_CHILD"

// TestCrashChildServer is the crash test's server process, not a test: it
// runs only when the crash test starts this test binary with crashChildEnv
// set.
func TestCrashChildServer(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		return
	}
	db, err := Open(Persist(dir))
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(3)
	}
	// Snapshots often, so that kills land in and around them too.
	db.persist.j.mu.Lock()
	db.persist.j.grow = 64 << 10
	db.persist.j.mu.Unlock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(3)
	}
	fmt.Println("URL http://" + ln.Addr().String())
	_ = http.Serve(ln, NewHandler(db))
}

// crashServer is one run of the child server.
type crashServer struct {
	cmd *exec.Cmd
	url string
}

func startCrashServer(t *testing.T, dir string) *crashServer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		if url, ok := strings.CutPrefix(line, "URL "); ok {
			go func() {
				for lines.Scan() {
				}
			}()
			return &crashServer{cmd: cmd, url: url}
		}
		if strings.HasPrefix(line, "ERROR") {
			_ = cmd.Wait()
			t.Fatalf("the server did not start: %s", line)
		}
	}
	_ = cmd.Wait()
	t.Fatalf("the server exited before listening")
	return nil
}

func (s *crashServer) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
}

// crashModel is what one writer knows of its own keys: what the server
// acknowledged, and what it sent without an answer (the crash may or may
// not have kept it).
type crashModel struct {
	worker int
	// puts[n] is put n's state; deletes[n] the delete of item del-n (put
	// first, acknowledged); txs[n] transaction n's.
	puts, deletes, txs map[int]opState
	// The counter's acknowledged and attempted increments.
	counterAcked, counterTried int
	next                       int
}

type opState int

const (
	tried opState = iota + 1 // sent; no answer
	acked                    // answered OK
	gone                     // tried, and the restart showed it was not kept
)

// TestCrashKeepsEveryAcknowledgedWrite runs a persistent server in a child
// process, writes to it from 8 connections (puts, ADD counters,
// transactions over two tables, deletes) and kills it with SIGKILL at
// random moments, then restarts it on the same directory and checks: no
// acknowledged write lost, no acknowledged delete undone, no transaction
// torn, every counter between its acknowledged and attempted increments.
// TABLEKIT_CRASH_SEED replays the kill moments and operations of a run;
// TABLEKIT_CRASH_ROUNDS sets the number of kills (20).
func TestCrashKeepsEveryAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the crash test starts 20 server processes")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TABLEKIT_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = v
	}
	rounds := 20
	if s := os.Getenv("TABLEKIT_CRASH_ROUNDS"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err)
		rounds = v
	}
	t.Logf("crash test seed %d (TABLEKIT_CRASH_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()

	srv := startCrashServer(t, dir)
	setup := NewClient(srv.url)
	for _, name := range []string{"crash", "crashtx"} {
		_, err := setup.CreateTable(pctx, benchTable(name))
		require.NoError(t, err)
	}
	const workers = 8
	models := make([]*crashModel, workers)
	seeds := make([]uint64, workers)
	for w := range models {
		models[w] = &crashModel{worker: w, puts: map[int]opState{}, deletes: map[int]opState{}, txs: map[int]opState{}}
		seeds[w] = rng.Uint64()
	}
	var totalAcked, totalTried atomic.Int64
	for round := range rounds {
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			// Each writer has its own client, so its own connection.
			client := NewClient(srv.url)
			wrng := rand.New(rand.NewPCG(seeds[w], uint64(round)))
			go func() {
				defer wg.Done()
				models[w].write(client, wrng, &stop, &totalAcked, &totalTried)
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		srv.kill()
		stop.Store(true)
		wg.Wait()

		srv = startCrashServer(t, dir)
		check := NewClient(srv.url)
		stored := scanCrash(t, check)
		for _, m := range models {
			m.verify(t, stored, round)
		}
		if t.Failed() {
			srv.kill()
			t.Fatalf("round %d failed (seed %d)", round, seed)
		}
	}
	srv.kill()
	t.Logf("%d rounds, %d kills: %d writes acknowledged of %d sent, 0 lost, 0 deletes undone, 0 transactions torn, counters within bounds",
		rounds, rounds, totalAcked.Load(), totalTried.Load())
}

// write sends random writes until stop, or until the server is gone.
func (m *crashModel) write(c *dynamodb.Client, rng *rand.Rand, stop *atomic.Bool, ackedN, triedN *atomic.Int64) {
	pk := fmt.Sprintf("w%d", m.worker)
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(sk)}
	}
	for !stop.Load() {
		n := m.next
		m.next++
		var err error
		triedN.Add(1)
		switch op := rng.IntN(4); op {
		case 0:
			m.puts[n] = tried
			_, err = c.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("crash"),
				Item: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(fmt.Sprintf("put-%d", n)), "v": nv(strconv.Itoa(n))}})
			if err == nil {
				m.puts[n] = acked
			}
		case 1:
			m.counterTried++
			_, err = c.UpdateItem(pctx, &dynamodb.UpdateItemInput{TableName: aws.String("crash"), Key: key("counter"),
				UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": nv("1")}})
			if err == nil {
				m.counterAcked++
			}
		case 2:
			m.txs[n] = tried
			_, err = c.TransactWriteItems(pctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("crash"), Item: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(fmt.Sprintf("tx-%d", n))}}},
				{Put: &types.Put{TableName: aws.String("crashtx"), Item: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(fmt.Sprintf("tx-%d", n))}}},
				{Update: &types.Update{TableName: aws.String("crash"), Key: key("txcount"), UpdateExpression: aws.String("ADD c :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": nv("1")}}},
			}})
			if err == nil {
				m.txs[n] = acked
			}
		case 3:
			// A delete of an item first put and acknowledged.
			_, err = c.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("crash"), Item: key(fmt.Sprintf("del-%d", n))})
			if err != nil {
				break
			}
			m.deletes[n] = tried
			_, err = c.DeleteItem(pctx, &dynamodb.DeleteItemInput{TableName: aws.String("crash"), Key: key(fmt.Sprintf("del-%d", n))})
			if err == nil {
				m.deletes[n] = acked
			}
		}
		if err == nil {
			ackedN.Add(1)
			continue
		}
		// No answer: the server was killed (or is being): this writer is
		// done for the round, its last write in doubt.
		var ne net.Error
		if !errors.As(err, &ne) && !strings.Contains(err.Error(), "connection") && !strings.Contains(err.Error(), "EOF") {
			fmt.Fprintf(os.Stderr, "crash test: writer %d: unexpected error: %v\n", m.worker, err)
		}
		return
	}
}

// scanCrash reads both tables whole: table/pk/sk -> the item.
func scanCrash(t *testing.T, c *dynamodb.Client) map[string]map[string]types.AttributeValue {
	t.Helper()
	stored := map[string]map[string]types.AttributeValue{}
	for _, name := range []string{"crash", "crashtx"} {
		in := &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)}
		for {
			out, err := c.Scan(pctx, in)
			require.NoError(t, err)
			for _, it := range out.Items {
				stored[name+"/"+it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberS).Value] = it
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	return stored
}

// verify checks the writer's keys against what the restarted server
// holds, then settles what was in doubt to what the restart kept.
func (m *crashModel) verify(t *testing.T, stored map[string]map[string]types.AttributeValue, round int) {
	t.Helper()
	pk := fmt.Sprintf("w%d", m.worker)
	has := func(table, sk string) bool { _, ok := stored[table+"/"+pk+"/"+sk]; return ok }
	for n, st := range m.puts {
		present := has("crash", fmt.Sprintf("put-%d", n))
		switch {
		case st == acked && !present:
			t.Errorf("round %d: writer %d: acknowledged put-%d lost", round, m.worker, n)
		case st == gone && present:
			t.Errorf("round %d: writer %d: put-%d, absent after an earlier restart, came back", round, m.worker, n)
		case st == tried:
			m.puts[n] = map[bool]opState{true: acked, false: gone}[present]
		}
	}
	for n, st := range m.deletes {
		present := has("crash", fmt.Sprintf("del-%d", n))
		switch {
		case st == acked && present:
			t.Errorf("round %d: writer %d: acknowledged delete of del-%d undone", round, m.worker, n)
		case st == tried:
			m.deletes[n] = map[bool]opState{false: acked, true: gone}[present]
		}
	}
	txAcked := 0
	for n, st := range m.txs {
		a, b := has("crash", fmt.Sprintf("tx-%d", n)), has("crashtx", fmt.Sprintf("tx-%d", n))
		if a != b {
			t.Errorf("round %d: writer %d: transaction %d torn: crash has it %v, crashtx %v", round, m.worker, n, a, b)
		}
		switch {
		case st == acked && !a:
			t.Errorf("round %d: writer %d: acknowledged transaction %d lost", round, m.worker, n)
		case st == tried:
			m.txs[n] = map[bool]opState{true: acked, false: gone}[a]
		}
		if m.txs[n] == acked {
			txAcked++
		}
	}
	// The transactions' own counter counts exactly the transactions kept.
	assert.Equal(t, txAcked, counterOf(stored, "crash/"+pk+"/txcount"), "round %d: writer %d: transactions kept and their counter", round, m.worker)
	c := counterOf(stored, "crash/"+pk+"/counter")
	if c < m.counterAcked || c > m.counterTried {
		t.Errorf("round %d: writer %d: counter %d outside [acknowledged %d, attempted %d]", round, m.worker, c, m.counterAcked, m.counterTried)
	}
	m.counterAcked, m.counterTried = c, c
}

func counterOf(stored map[string]map[string]types.AttributeValue, key string) int {
	it, ok := stored[key]
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(it["c"].(*types.AttributeValueMemberN).Value)
	return n
}
