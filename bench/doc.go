// Package bench compares tablekit's typed layer (table.Put, Update, Get and
// QueryPage) with the raw AWS SDK call sending the same request, and with
// github.com/guregu/dynamo, in process against dynamotest's fake: CPU time
// per operation, where the fake's own share is the same for all three.
//
// It is a module of its own so that tablekit's go.mod does not carry the
// libraries it is compared with. Run it from this folder:
//
//	go test -run '^$' -bench . -count 6 | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat -col /lib new.txt
//
// The sub-benchmarks of one operation run one after another in one
// process, so their ratio holds on a noisy machine better than their times.
package bench
