package journey

import (
	"context"
	"testing"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/internal/testenv"
)

// localStore is a store on the DynamoDB at TABLEKIT_DYNAMODB_ENDPOINT
// (skipping without it), on a table of its own.
func localStore(t *testing.T, opts ...func(*Options)) *Store {
	t.Helper()
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, DefaultTableName)
	ctx := context.Background()
	if err := Schema(name).EnsureTable(ctx, client); err != nil {
		t.Fatal(err)
	}
	return NewStore(client, blobstore.NewMemory(), append([]func(*Options){func(o *Options) { o.TableName = name }}, opts...)...)
}

// TestConcurrentFinishesLoseNothingOnDynamoDBLocal is
// TestConcurrentFinishesLoseNothing against DynamoDB Local, whose
// transactions really conflict and are retried.
func TestConcurrentFinishesLoseNothingOnDynamoDBLocal(t *testing.T) {
	s := localStore(t)
	if _, err := s.CreateJourney(context.Background(), NewJourney{ID: "JRN-LOCAL", Name: "concurrent finishes"}); err != nil {
		t.Fatal(err)
	}
	concurrentFinishes(t, s, "JRN-LOCAL")
}

// TestSeedLayoutOnDynamoDBLocal writes the seed's journey through the
// store and loads it back in one Query.
func TestLoadJourneyOnDynamoDBLocal(t *testing.T) {
	s := localStore(t)
	ctx := context.Background()
	c, err := s.CreateJourney(ctx, NewJourney{ID: "JRN-LOCAL", Name: "load"})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range c.Stages[:3] {
		j, err := s.StartJob(ctx, NewJob{JourneyID: "JRN-LOCAL", StageID: st.StageID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRule(ctx, NewRule{JourneyID: "JRN-LOCAL", StageID: st.StageID, Title: "r", Type: RuleValidation}); err != nil {
			t.Fatal(err)
		}
		l, err := s.StepLogger(j.Ref(), "run")
		if err != nil {
			t.Fatal(err)
		}
		l.Info("hello", map[string]any{"n": 1})
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishJob(ctx, j.Ref(), Finish{Status: JobCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.LoadJourney(ctx, "JRN-LOCAL", Consistent())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Stages) != 6 || len(got.Rules) != 3 || len(got.Jobs) != 3 || len(got.Logs) != 3 ||
		got.Journey.Aggregates.CompletedJobs != 3 || got.Journey.Aggregates.TotalLogs != 3 || got.Jobs[0].Metrics.InfoCount != 1 {
		t.Fatalf("loaded %+v", got)
	}
	logs, err := s.LogSummaries(ctx, got.Jobs[0].JobID, LogQuery{NewestFirst: true, Limit: 10}, "")
	if err != nil || len(logs.Items) != 1 {
		t.Fatalf("log summaries %v, %v", logs, err)
	}
}
