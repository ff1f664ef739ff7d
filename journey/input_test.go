package journey

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// TestBadInputFailsBeforeAnyRequest calls every public method with bad
// input: each returns an error matching table.ErrInvalidInput (a
// *table.InputError naming the field) and sends nothing to DynamoDB or
// the blob stores.
func TestBadInputFailsBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store
	good := JobRef{JourneyID: "JRN-T", StageID: "raw_analysis", Order: 1, Execution: 1, StartedAt: t0, JobID: "JOB-1"}
	with := func(f func(*JobRef)) JobRef { r := good; f(&r); return r }
	rule := RuleRef{JourneyID: "JRN-T", StageID: "raw_analysis", Index: 1, RuleID: "rule-1"}
	okRule := NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "t", Type: RuleFieldMapping}
	ruleWith := func(f func(*NewRule)) NewRule { r := okRule; f(&r); return r }
	logger := must[*StepLogger](t)(s.Logs().Logger(good, "s"))
	long := strings.Repeat("x", 200)

	calls := map[string]func() error{
		"CreateJourney bad id":  func() error { _, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN#1", Name: "n"}); return err },
		"CreateJourney no name": func() error { _, err := s.Journeys().Create(ctx, NewJourney{}); return err },
		"CreateJourney priority": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Priority: "urgent"})
			return err
		},
		"CreateJourney timeout": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Configuration: Configuration{Timeout: -1}})
			return err
		},
		"CreateJourney stage id": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Stages: []Stage{{StageID: "a.b"}}})
			return err
		},
		"CreateJourney dup stages": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Stages: []Stage{{StageID: "a"}, {StageID: "a"}}})
			return err
		},
		"CreateJourney step id": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Stages: []Stage{{StageID: "a", Steps: []StepDefinition{{}}}}})
			return err
		},
		"CreateJourney no stages": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Stages: []Stage{}})
			return err
		},
		"CreateJourney 100 stages": func() error {
			_, err := s.Journeys().Create(ctx, NewJourney{Name: "n", Stages: make([]Stage, 100)})
			return err
		},
		"GetJourney":         func() error { _, err := s.Journeys().Get(ctx, ""); return err },
		"GetJourney long id": func() error { _, err := s.Journeys().Get(ctx, long); return err },
		"LoadJourney":        func() error { _, err := s.Journeys().Load(ctx, "a/b"); return err },
		"ListJourneys":       func() error { _, err := s.Journeys().List(ctx, "", Limit(-1)); return err },
		"ListJourneys stage": func() error { _, err := s.Journeys().List(ctx, "", OfStage("raw")); return err },
		"ListJourneys both": func() error {
			_, err := s.Journeys().List(ctx, "", func(o *ListOptions) { o.NewestFirst, o.OldestFirst = true, true })
			return err
		},
		"ListJourneys consistent": func() error { _, err := s.Journeys().List(ctx, "", Consistent()); return err },
		"ListJourneys with logs":  func() error { _, err := s.Journeys().List(ctx, "", IncludeLogSummaries()); return err },
		"GetJourney limit":        func() error { _, err := s.Journeys().Get(ctx, "JRN-T", Limit(1)); return err },
		"GetJourney with logs":    func() error { _, err := s.Journeys().Get(ctx, "JRN-T", IncludeLogSummaries()); return err },
		"LoadJourney newest":      func() error { _, err := s.Journeys().Load(ctx, "JRN-T", NewestFirst()); return err },
		"LoadJourney limit":       func() error { _, err := s.Journeys().Load(ctx, "JRN-T", Limit(2)); return err },
		"GetStage stage":          func() error { _, err := s.Stages().Get(ctx, "JRN-T", "raw_analysis", OfStage("raw")); return err },
		"GetJob limit":            func() error { _, err := s.Jobs().Get(ctx, good, Limit(1)); return err },
		"GetRule oldest":          func() error { _, err := s.Rules().Get(ctx, rule, OldestFirst()); return err },
		"ForStage limit":          func() error { _, err := s.Rules().ForStage(ctx, "JRN-T", "raw_analysis", Limit(3)); return err },
		"ListSummaries consistent": func() error {
			_, err := s.Logs().ListSummaries(ctx, "JOB-1", "", Consistent())
			return err
		},
		"ListCatalog consistent": func() error { _, err := s.Reports().ListCatalog(ctx, "JOB-1", "", Consistent()); return err },
		"ListJobs with logs":     func() error { _, err := s.Jobs().List(ctx, "JRN-T", "", IncludeLogSummaries()); return err },
		"Pause":                  func() error { _, err := s.Journeys().Pause(ctx, "a b"); return err },
		"Resume":                 func() error { _, err := s.Journeys().Resume(ctx, ""); return err },
		"Cancel":                 func() error { _, err := s.Journeys().Cancel(ctx, "#"); return err },
		"Stages":                 func() error { _, err := s.Stages().List(ctx, "", ""); return err },
		"Stages order":           func() error { _, err := s.Stages().List(ctx, "JRN-T", "", NewestFirst()); return err },
		"Stage":                  func() error { _, err := s.Stages().Get(ctx, "JRN-T", "a#b"); return err },
		"AddRule journey": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.JourneyID = "" }))
			return err
		},
		"AddRule stage": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.StageID = "a#b" }))
			return err
		},
		"AddRule id": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.RuleID = "r.1" }))
			return err
		},
		"AddRule title": func() error { _, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.Title = "" })); return err },
		"AddRule type": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.Type = "magic" }))
			return err
		},
		"AddRule priority": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.Priority = "urgent" }))
			return err
		},
		"AddRule scope": func() error {
			_, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.Scope = "world" }))
			return err
		},
		"AddRule status":       func() error { _, err := s.Rules().Add(ctx, ruleWith(func(r *NewRule) { r.Status = "on" })); return err },
		"GetRule":              func() error { _, err := s.Rules().Get(ctx, RuleRef{JourneyID: "JRN-T", StageID: "s"}); return err },
		"GetRule index":        func() error { r := rule; r.Index = 1000; _, err := s.Rules().Get(ctx, r); return err },
		"SetRuleStatus status": func() error { _, err := s.Rules().SetStatus(ctx, rule, "on"); return err },
		"SetRuleStatus ref":    func() error { _, err := s.Rules().SetStatus(ctx, RuleRef{}, RuleActive); return err },
		"RulesForStage":        func() error { _, err := s.Rules().ForStage(ctx, "JRN-T", ""); return err },
		"StartJob journey":     func() error { _, err := s.Jobs().Start(ctx, NewJob{StageID: "raw_analysis"}); return err },
		"StartJob stage":       func() error { _, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T"}); return err },
		"StartJob job id": func() error {
			_, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "x", JobID: "J/1"})
			return err
		},
		"StartJob config": func() error {
			_, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "x", Configuration: JobConfiguration{RetryAttempts: -1}})
			return err
		},
		"StartJob timeout": func() error {
			_, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "x", Configuration: JobConfiguration{Timeout: -1}})
			return err
		},
		"GetJob no start": func() error {
			_, err := s.Jobs().Get(ctx, with(func(r *JobRef) { r.StartedAt = time.Time{} }))
			return err
		},
		"GetJob order":            func() error { _, err := s.Jobs().Get(ctx, with(func(r *JobRef) { r.Order = 100 })); return err },
		"GetJob execution":        func() error { _, err := s.Jobs().Get(ctx, with(func(r *JobRef) { r.Execution = -1 })); return err },
		"FindJob":                 func() error { _, err := s.Jobs().Find(ctx, ""); return err },
		"ListJobs":                func() error { _, err := s.Jobs().List(ctx, "", "", OfStage("raw_analysis")); return err },
		"ListJobs stage":          func() error { _, err := s.Jobs().List(ctx, "JRN-T", "", OfStage("a#b")); return err },
		"ListJobs limit":          func() error { _, err := s.Jobs().List(ctx, "JRN-T", "", Limit(-1)); return err },
		"LatestExecution":         func() error { _, err := s.Jobs().Latest(ctx, "JRN-T", "a b"); return err },
		"UpdateJobProgress range": func() error { _, err := s.Jobs().SetProgress(ctx, good, 101, ""); return err },
		"UpdateJobProgress step":  func() error { _, err := s.Jobs().SetProgress(ctx, good, 1, "a.b"); return err },
		"UpdateJobProgress ref":   func() error { _, err := s.Jobs().SetProgress(ctx, JobRef{}, 1, ""); return err },
		"SetStepStatus status":    func() error { _, err := s.Jobs().SetStepStatus(ctx, good, "s", "done"); return err },
		"SetStepStatus step":      func() error { _, err := s.Jobs().SetStepStatus(ctx, good, "", StepRunning); return err },
		"FinishJob status":        func() error { _, err := s.Jobs().Finish(ctx, good, Finish{Status: JobRunning}); return err },
		"FinishJob ref": func() error {
			_, err := s.Jobs().Finish(ctx, with(func(r *JobRef) { r.JobID = "" }), Finish{Status: JobCompleted})
			return err
		},
		"StepLogger step":    func() error { _, err := s.Logs().Logger(good, "a/b"); return err },
		"StepLogger ref":     func() error { _, err := s.Logs().Logger(with(func(r *JobRef) { r.StageID = "" }), "s"); return err },
		"Log level":          func() error { return logger.Log("TRACE", "m", nil) },
		"JobLogs":            func() error { _, err := s.Logs().Read(ctx, JobRef{JourneyID: "JRN-T"}); return err },
		"StepLogs":           func() error { _, err := s.Logs().ReadStep(ctx, good, "../x"); return err },
		"LogSummaries id":    func() error { _, err := s.Logs().ListSummaries(ctx, "", ""); return err },
		"LogSummaries limit": func() error { _, err := s.Logs().ListSummaries(ctx, "JOB-1", "", Limit(-1)); return err },
		"WriteReport type": func() error {
			_, err := s.Reports().Write(ctx, good, "s", Report{ReportType: "pdf", Title: "t"})
			return err
		},
		"WriteReport title": func() error {
			_, err := s.Reports().Write(ctx, good, "s", Report{ReportType: ReportSummary})
			return err
		},
		"WriteReport step": func() error {
			_, err := s.Reports().Write(ctx, good, "", Report{ReportType: ReportSummary, Title: "t"})
			return err
		},
		"WriteReport unencodable": func() error {
			_, err := s.Reports().Write(ctx, good, "s", Report{ReportType: ReportSummary, Title: "t", DetailedResults: map[string]any{"f": func() {}}})
			return err
		},
		"JobReports":                 func() error { _, err := s.Reports().Read(ctx, JobRef{}); return err },
		"ReportCatalog id":           func() error { _, err := s.Reports().ListCatalog(ctx, "", ""); return err },
		"ReportCatalog limit":        func() error { _, err := s.Reports().ListCatalog(ctx, "JOB-1", "", Limit(-5)); return err },
		"Export":                     func() error { _, err := s.Backups().Export(ctx, ""); return err },
		"Import":                     func() error { _, err := s.Backups().Import(ctx, "a#b"); return err },
		"ImportBackup":               func() error { _, err := s.Backups().ImportFrom(ctx, "", strings.NewReader("{}")); return err },
		"PatternsWithRates name":     func() error { _, err := PatternsWithRates(map[string]float64{"nope": 1}); return err },
		"PatternsWithRates negative": func() error { _, err := PatternsWithRates(map[string]float64{PatternFinishJob: -1}); return err },
		"NewStore nil db":            func() error { _, err := NewStore(nil, e.logs); return err },
		"NewStore nil logs":          func() error { _, err := NewStore(e.db, nil); return err },
		"NewStore table name":        func() error { _, err := NewStore(e.db, e.logs, TableName("a b")); return err },
		"NewStore job timeout":       func() error { _, err := NewStore(e.db, e.logs, JobTimeout(1500*time.Millisecond)); return err },
		"NewID bad": func() error {
			_, err := mustStore(t, e.db, e.logs, func(o *Options) { o.NewID = func(string) string { return "a#b" } }).Journeys().Create(ctx, NewJourney{Name: "n"})
			return err
		},
		"Journeys without a context": func() error {
			for _, err := range s.Journeys().All(nil) { //nolint:staticcheck // a nil context is the bad input
				return err
			}
			return nil
		},
	}
	e.db.ResetCalls()
	for name, call := range calls {
		err := call()
		var ie *table.InputError
		if !assert.ErrorIs(t, err, table.ErrInvalidInput, name) || !assert.ErrorAs(t, err, &ie, "%s: a *table.InputError", name) {
			continue
		}
		assert.NotEmpty(t, ie.Field, "%s: %v does not name the field", name, err)
		assert.NotEmpty(t, ie.Reason, "%s: %v does not say what was wrong", name, err)
	}
	n := e.calls()
	assert.Equal(t, 0, n, "bad input sent %d DynamoDB requests", n)
	objs := append(objects(t, e.logs), objects(t, e.reports)...)
	assert.Equal(t, 0, len(objs), "bad input wrote objects %v", objs)
}

func TestSchemaDeclaresEveryAccessPattern(t *testing.T) {
	s := Schema("")
	require.NoError(t, s.Validate())
	require.Equal(t, DefaultTableName, s.Name, "the table")
	require.Equal(t, "PK", s.PartitionKey.Name, "the partition key")
	require.Equal(t, "SK", s.SortKey.Name, "the sort key")
	require.Len(t, s.Indexes, 1, "the indexes")
	require.Equal(t, "GSI1PK", s.Indexes[0].PartitionKey.Name, "GSI1's partition key")
	require.Equal(t, "GSI1SK", s.Indexes[0].SortKey.Name, "GSI1's sort key")
	assert.Equal(t, len(defaultRates), len(Patterns()), "%d patterns, %d rates", len(Patterns()), len(defaultRates))
	for _, ap := range Patterns() {
		assert.Positive(t, ap.ItemSize, "pattern %s: item size", ap.Name)
		assert.Positive(t, ap.RatePerSecond, "pattern %s: rate", ap.Name)
		assert.NotEmpty(t, ap.KeyCondition, "pattern %s: key condition", ap.Name)
	}
	custom := must[[]access.Pattern](t)(PatternsWithRates(map[string]float64{PatternFinishJob: 50}))
	for _, ap := range custom {
		if ap.Name == PatternFinishJob {
			assert.Equal(t, 50.0, ap.RatePerSecond, "the overridden rate of %s", ap.Name)
		}
	}
	other := Schema("Other")
	assert.Equal(t, "Other", other.Name, "name %s", other.Name)
}

// TestConsistentIsOneOptionForGetsAndLists: the one helper Consistent()
// makes a Get, Journeys.Load and the lists of a journey's partition read
// strongly consistently (ConsistentRead on the request), and every read
// refuses, before any request, an option it cannot honour.
func TestConsistentIsOneOptionForGetsAndLists(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rec := &recorder{DB: e.db}
	s := mustStore(t, rec, e.logs, func(o *Options) { o.Clock = e.db.Now })
	e.newJourney(t)
	job := must[*Job](t)(s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))

	reads := map[string]func() error{
		"Journeys.Load": func() error { _, err := s.Journeys().Load(ctx, "JRN-T", Consistent()); return err },
		"Stages.Get":    func() error { _, err := s.Stages().Get(ctx, "JRN-T", "raw_analysis", Consistent()); return err },
		"Stages.List":   func() error { _, err := s.Stages().List(ctx, "JRN-T", "", Consistent()); return err },
		"Jobs.List":     func() error { _, err := s.Jobs().List(ctx, "JRN-T", "", Consistent(), Limit(5)); return err },
		"Rules.ForStage": func() error {
			_, err := s.Rules().ForStage(ctx, "JRN-T", "raw_analysis", Consistent())
			return err
		},
	}
	for name, read := range reads {
		rec.queries = nil
		require.NoError(t, read(), name)
		if assert.NotEmpty(t, rec.queries, "%s sent no Query", name) {
			for _, q := range rec.queries {
				assert.True(t, aws.ToBool(q.ConsistentRead), "%s with Consistent(): a Query without ConsistentRead", name)
			}
		}
	}
	e.db.ResetConsumed()
	_, err := s.Jobs().Get(ctx, job.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, 1.0, e.db.Consumed(DefaultTableName).ReadUnits, "a consistent GetItem of a small job costs a whole read unit")

	// Every read takes nil options without panicking: they are skipped.
	_, err = s.Journeys().Get(ctx, "JRN-T", nil)
	assert.NoError(t, err, "a nil read option")
	_, err = s.Jobs().List(ctx, "JRN-T", "", nil)
	assert.NoError(t, err, "a nil list option")
}

// TestTheRuleLibrarysIDIsReservedInEveryCallThatTakesAJourneyID: the
// library lives at JOURNEY#GLOBAL, so a journey named GLOBAL would be the
// library (its global rules applied to every journey) and a caller passing
// a user's journey id could write into it. Every public call that takes a
// journey id refuses GlobalRules with a *table.InputError and sends and
// writes nothing; only Library reaches the library.
func TestTheRuleLibrarysIDIsReservedInEveryCallThatTakesAJourneyID(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store
	_, err := s.Library().Create(ctx, nil)
	require.NoError(t, err)
	_, err = s.Library().Add(ctx, NewRule{StageID: "raw_analysis", Title: "library rule", Type: RuleValidation})
	require.NoError(t, err)
	_, err = s.Library().Export(ctx)
	require.NoError(t, err)
	backup := objects(t, e.backups)
	require.Len(t, backup, 1, "the library's export")
	e.db.ResetCalls()

	job := JobRef{JourneyID: GlobalRules, StageID: "raw_analysis", Order: 1, Execution: 1, StartedAt: t0, JobID: "JOB-1"}
	rule := RuleRef{JourneyID: GlobalRules, StageID: "raw_analysis", Index: 1, RuleID: "rule-1"}
	doc := `{"format":"` + BackupFormat + `","journeyId":"GLOBAL","items":[]}`
	calls := map[string]func() error{
		"Journeys.Create": func() error { _, err := s.Journeys().Create(ctx, NewJourney{ID: GlobalRules, Name: "n"}); return err },
		"Journeys.Get":    func() error { _, err := s.Journeys().Get(ctx, GlobalRules); return err },
		"Journeys.Load":   func() error { _, err := s.Journeys().Load(ctx, GlobalRules); return err },
		"Journeys.Pause":  func() error { _, err := s.Journeys().Pause(ctx, GlobalRules); return err },
		"Journeys.Resume": func() error { _, err := s.Journeys().Resume(ctx, GlobalRules); return err },
		"Journeys.Cancel": func() error { _, err := s.Journeys().Cancel(ctx, GlobalRules); return err },
		"Stages.Get":      func() error { _, err := s.Stages().Get(ctx, GlobalRules, "raw_analysis"); return err },
		"Stages.Skip":     func() error { _, err := s.Stages().Skip(ctx, GlobalRules, "raw_analysis"); return err },
		"Stages.List":     func() error { _, err := s.Stages().List(ctx, GlobalRules, ""); return err },
		"Stages.All":      func() error { _, err := collect(s.Stages().All(ctx, GlobalRules)); return err },
		"Jobs.Start": func() error {
			_, err := s.Jobs().Start(ctx, NewJob{JourneyID: GlobalRules, StageID: "raw_analysis"})
			return err
		},
		"Jobs.Finish":        func() error { _, err := s.Jobs().Finish(ctx, job, Finish{Status: JobCompleted}); return err },
		"Jobs.Get":           func() error { _, err := s.Jobs().Get(ctx, job); return err },
		"Jobs.Latest":        func() error { _, err := s.Jobs().Latest(ctx, GlobalRules, "raw_analysis"); return err },
		"Jobs.SetProgress":   func() error { _, err := s.Jobs().SetProgress(ctx, job, 10, ""); return err },
		"Jobs.SetStepStatus": func() error { _, err := s.Jobs().SetStepStatus(ctx, job, "s", StepRunning); return err },
		"Jobs.List":          func() error { _, err := s.Jobs().List(ctx, GlobalRules, "", OfStage("raw_analysis")); return err },
		"Jobs.All":           func() error { _, err := collect(s.Jobs().All(ctx, GlobalRules)); return err },
		"Rules.Add": func() error {
			_, err := s.Rules().Add(ctx, NewRule{JourneyID: GlobalRules, StageID: "raw_analysis", Title: "injected",
				Type: RuleBusinessLogic, Scope: ScopeGlobal})
			return err
		},
		"Rules.Get":       func() error { _, err := s.Rules().Get(ctx, rule); return err },
		"Rules.SetStatus": func() error { _, err := s.Rules().SetStatus(ctx, rule, RuleInactive); return err },
		"Rules.ForStage":  func() error { _, err := s.Rules().ForStage(ctx, GlobalRules, "raw_analysis"); return err },
		"Logs.Logger":     func() error { _, err := s.Logs().Logger(job, "s"); return err },
		"Logs.Read":       func() error { _, err := s.Logs().Read(ctx, job); return err },
		"Logs.ReadStep":   func() error { _, err := s.Logs().ReadStep(ctx, job, "s"); return err },
		"Reports.Write":   func() error { _, err := s.Reports().Write(ctx, job, "s", Report{Title: "r"}); return err },
		"Reports.Read":    func() error { _, err := s.Reports().Read(ctx, job); return err },
		"Backups.Export":  func() error { _, err := s.Backups().Export(ctx, GlobalRules); return err },
		"Backups.Import":  func() error { _, err := s.Backups().Import(ctx, GlobalRules, Overwrite()); return err },
		"Backups.ImportFrom": func() error {
			_, err := s.Backups().ImportFrom(ctx, GlobalRules, strings.NewReader(doc), Overwrite())
			return err
		},
		// The library's calls refuse a journey's id in turn.
		"Library.Add journey": func() error {
			_, err := s.Library().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "t", Type: RuleValidation})
			return err
		},
		"Library.Get journey": func() error {
			_, err := s.Library().Get(ctx, RuleRef{JourneyID: "JRN-T", StageID: "raw_analysis", Index: 1, RuleID: "r"})
			return err
		},
		"Library.SetStatus journey": func() error {
			_, err := s.Library().SetStatus(ctx, RuleRef{JourneyID: "JRN-T", StageID: "raw_analysis", Index: 1, RuleID: "r"}, RuleInactive)
			return err
		},
	}
	for name, call := range calls {
		err := call()
		var ie *table.InputError
		if assert.ErrorAs(t, err, &ie, name) {
			assert.Contains(t, ie.Field, "ourney", "%s: the field named is the journey id", name)
			assert.Contains(t, ie.Reason, "rule library", "%s: the reason names the library", name)
		}
	}
	assert.Zero(t, e.calls(), "requests sent for a reserved id")
	assert.Empty(t, objects(t, e.logs), "log objects written for a reserved id")
	assert.Empty(t, objects(t, e.reports), "report objects written for a reserved id")
	assert.Equal(t, backup, objects(t, e.backups), "backup objects written for a reserved id")

	// The library is as it was, and unlisted: a journey listing shows
	// journeys only.
	lib, err := s.Library().Load(ctx, Consistent())
	require.NoError(t, err)
	require.Len(t, lib.Rules, 1, "the library's rules")
	assert.Equal(t, "library rule", lib.Rules[0].Title, "the library's rule")
	assert.Equal(t, RuleActive, lib.Rules[0].Status, "the library's rule status")
	assert.Equal(t, ScopeGlobal, lib.Rules[0].Scope, "Library.Add files rules as global by default")
	listed, err := collect(s.Journeys().All(ctx))
	require.NoError(t, err)
	assert.Empty(t, listed, "Journeys.List shows the rule library")
	got, err := s.Library().Get(ctx, lib.Rules[0].Ref())
	require.NoError(t, err)
	got, err = s.Library().SetStatus(ctx, got.Ref(), RuleInactive)
	require.NoError(t, err)
	assert.Equal(t, RuleInactive, got.Status, "a library rule disabled through Library")
}

// TestLibraryImportUnlistsALibraryCreatedAsAJourney: a library created
// before Library existed (Journeys.Create with ID GLOBAL, listed on GSI1)
// is exported and imported again through Library and is then no longer
// listed as a journey, its rules intact.
func TestLibraryImportUnlistsALibraryCreatedAsAJourney(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store
	// What Journeys.Create with ID GLOBAL wrote: a listed journey.
	_, err := s.createJourney(ctx, NewJourney{ID: GlobalRules, Name: "old library"}, true)
	require.NoError(t, err)
	_, err = s.Library().Add(ctx, NewRule{StageID: "tmf_mapping", Title: "old rule", Type: RuleValidation})
	require.NoError(t, err)
	listed, err := collect(s.Journeys().All(ctx))
	require.NoError(t, err)
	require.Len(t, listed, 1, "the old library is listed")

	info, err := s.Library().Export(ctx)
	require.NoError(t, err)
	rc, _, err := e.backups.Get(ctx, info.Key)
	require.NoError(t, err)
	defer rc.Close()
	c, err := s.Library().ImportFrom(ctx, rc, Overwrite())
	require.NoError(t, err)
	require.Len(t, c.Rules, 1, "the restored library's rules")
	c, err = s.Library().Import(ctx, Overwrite())
	require.NoError(t, err, "the library restored from the backups store")
	require.Len(t, c.Rules, 1, "the library's rules restored from the backups store")
	listed, err = collect(s.Journeys().All(ctx))
	require.NoError(t, err)
	assert.Empty(t, listed, "the library after Library.ImportFrom")
	rules, err := s.Rules().ForStage(ctx, "JRN-ANY", "tmf_mapping")
	require.NoError(t, err)
	assert.Len(t, rules, 1, "the library's global rule applies to every journey")
}
