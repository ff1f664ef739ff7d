package journey

import (
	"context"
	"testing"
)

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	j := must[*Job](t)(e.store.StartJob(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))
	l := must[*StepLogger](t)(e.store.StepLogger(j.Ref(), "schema_extraction"))
	l.Info("hello", map[string]any{"a": 1})
	l.Warning("w", nil)
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.WriteReport(ctx, j.Ref(), "schema_extraction", Report{ReportType: ReportPerformance, Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AddRule(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "r", Type: RuleFieldMapping}); err != nil {
		t.Fatal(err)
	}
	j2 := must[*Job](t)(e.store.FinishJob(ctx, j.Ref(), Finish{Status: JobCompleted}))
	c := must[*Complete](t)(e.store.LoadJourney(ctx, "JRN-T"))
	t.Logf("%+v\n%+v\n%+v", c.Journey, j2, c.Logs)
}
