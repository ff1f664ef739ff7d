package journey

import (
	"context"
	"io"
)

// Library is the handle of the rule library: the global rules every
// journey shares (the seed's scope "global"), kept in a partition of their
// own, PK JOURNEY#GLOBAL, filed under stages like a journey's rules.
// [Rules.ForStage] adds the library's global-scope rules to every
// journey's.
//
// The library's id, [GlobalRules], is reserved: every call that takes a
// journey id refuses it with a *table.InputError, so no journey, however
// it is named, can become the library or write into it, and the library is
// reached through this handle only.
type Library struct{ s *Store }

// Library returns the store's handle of the rule library.
func (s *Store) Library() *Library { return &Library{s: s} }

// Create creates the library: its metadata (not listed by Journeys.List)
// and the stages its rules are filed under, DefaultStages() when stages is
// nil, in one transaction, like Journeys.Create. A library that exists is
// ErrJourneyExists and nothing is written.
func (h *Library) Create(ctx context.Context, stages []Stage) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Create")
	defer span.End(&err)
	return h.s.createJourney(ctx, NewJourney{ID: GlobalRules, Name: "Rule library", Stages: stages}, false)
}

// Load reads the whole library in one Query, as Journeys.Load reads a
// journey: its stages and every rule, of any scope and status.
func (h *Library) Load(ctx context.Context, opts ...func(*ReadOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Load")
	defer span.End(&err)
	if _, err := readOptions(loadKind.named("Library.Load"), opts); err != nil {
		return nil, err
	}
	return h.s.loadJourney(ctx, GlobalRules, opts...)
}

// Add adds a rule to the library, as Rules.Add adds one to a journey.
// in.JourneyID must be "" or GlobalRules; in.Scope defaults to
// ScopeGlobal, the scope Rules.ForStage reads from the library (a rule of
// another scope is kept but applies to no journey).
func (h *Library) Add(ctx context.Context, in NewRule) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Add")
	defer span.End(&err)
	if in.JourneyID, err = libraryID("NewRule.JourneyID", in.JourneyID); err != nil {
		return nil, err
	}
	if in.Scope == "" {
		in.Scope = ScopeGlobal
	}
	return h.s.addRule(ctx, in)
}

// Get reads one rule of the library; ref.JourneyID must be GlobalRules
// (as Rule.Ref gives it) or "".
func (h *Library) Get(ctx context.Context, ref RuleRef, opts ...func(*ReadOptions)) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Get")
	defer span.End(&err)
	if _, err := readOptions(getKind.named("Library.Get"), opts); err != nil {
		return nil, err
	}
	if ref.JourneyID, err = libraryID("RuleRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.getRule(ctx, ref, opts...)
}

// SetStatus enables, disables or deprecates a rule of the library, as
// Rules.SetStatus does a journey's; ref.JourneyID must be GlobalRules or
// "".
func (h *Library) SetStatus(ctx context.Context, ref RuleRef, status RuleStatus) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.SetStatus")
	defer span.End(&err)
	if ref.JourneyID, err = libraryID("RuleRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.setRuleStatus(ctx, ref, status)
}

// Export writes the library to the backups store at
// journeys/GLOBAL/backup.json, as Backups.Export writes a journey.
func (h *Library) Export(ctx context.Context) (_ *ExportInfo, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Export")
	defer span.End(&err)
	return h.s.export(ctx, GlobalRules)
}

// Import restores the library from journeys/GLOBAL/backup.json in the
// backups store, all or nothing, as Backups.Import restores a journey.
func (h *Library) Import(ctx context.Context, opts ...func(*ImportOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.Import")
	defer span.End(&err)
	return h.s.importJourney(ctx, GlobalRules, opts...)
}

// ImportFrom restores the library from a document Export wrote, all or
// nothing, as Backups.ImportFrom restores a journey.
func (h *Library) ImportFrom(ctx context.Context, r io.Reader, opts ...func(*ImportOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Library.ImportFrom")
	defer span.End(&err)
	return h.s.importBackup(ctx, GlobalRules, r, opts...)
}

// ready refuses a nil handle, a Store NewStore did not make and a nil
// context.
func (h *Library) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// libraryID is the journey id of a library call: "" and GlobalRules name
// the library; any other id is a journey's, which the library's calls
// refuse.
func libraryID(field, id string) (string, error) {
	if id != "" && id != GlobalRules {
		return "", inputError(field, id, "a Library call reads and changes the rule library ("+GlobalRules+"), not a journey: use Rules")
	}
	return GlobalRules, nil
}

// refuseReserved refuses the id of the rule library where a journey's id
// is expected, so that no journey id, however chosen, maps to the
// library's partition: every call that takes a journey id checks it, and
// only Library reaches the library.
func refuseReserved(field, id string) error {
	if id == GlobalRules {
		return inputError(field, id, "is reserved for the rule library (GlobalRules): use Store.Library()")
	}
	return nil
}
