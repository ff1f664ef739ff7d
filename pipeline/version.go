package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Sort key of a version item (seed: sk "PV:<versionNo>"), under the
// pipeline's pk. This package writes the number zero-padded to ten digits
// (PV:0000000003) so that versions sort numerically (PV:0000000002 before
// PV:0000000010) and "list versions" is one key condition that reads
// versions only, never PV:current or the G: membership items beside them.
// It reads the seed's unpadded form (PV:3) too: see Versions.Get and
// Versions.
var (
	// SK "PV:0000000003"
	versionSK = keys.MustSort("PV:{version:010d}", delimiter)
)

// seedVersionSK is the sort key the seed writes for a version: PV:3.
func seedVersionSK(version int) string { return "PV:" + strconv.Itoa(version) }

// maxVersion is the largest version versionSK holds.
const maxVersion = 9_999_999_999

// Get returns version of pipeline id as it was written.
func (h *Versions) Get(ctx context.Context, id string, version int) (*Pipeline, error) {
	return h.store().getVersion(ctx, id, version, false)
}

// getVersion is Versions.Get with the read's options: PresignInputUpload
// reads the version strongly consistent, so it finds one an Update wrote a
// moment before.
func (s *Store) getVersion(ctx context.Context, id string, version int, consistent bool) (_ *Pipeline, err error) {
	ctx, span := s.start(ctx, "pipeline.Versions.Get")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := checkVersion(id, version); err != nil {
		return nil, err
	}
	var eopts []func(*entity.ReadOptions)
	var topts []func(*table.GetOptions)
	if consistent {
		eopts, topts = append(eopts, entity.Consistent()), append(topts, table.Consistent())
	}
	it, err := s.versions.Get(ctx, pipelineItem{ID: id, Version: version}, eopts...)
	if errors.Is(err, table.ErrNotFound) {
		// Written by a service that follows the seed: PV:3, unpadded.
		pk, _ := pipelinePK.Build(id)
		err = s.t.Get(ctx, s.t.Key(pk, seedVersionSK(version)), &it, topts...)
		it.ID = id
	}
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound("pipeline version", fmt.Sprintf("%s@%d", id, version), err)
		}
		return nil, err
	}
	return it.pipeline()
}

func checkVersion(id string, version int) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	if version < 1 || version > maxVersion {
		return inputError("version", version, fmt.Sprintf("versions are 1 to %d", maxVersion))
	}
	return nil
}

// Versions are read from the base table: the seed lists them on GSI-1,
// but GSI-1's sort key is pk, which is the same for every version, and
// versions stay out of GSI-1 (see the package doc). A table can hold both
// forms of sort key, PV:0000000003 (this package) and PV:3 (the seed), and
// DynamoDB orders them as text (PV:1, PV:10, PV:2), so a listing reads two
// ranges and merges them by number:
//
//   - padded: BETWEEN PV:0000000001 AND PV:0999999999, every key with a
//     leading zero, already in numeric order, read a page at a time;
//   - seed: BETWEEN PV:1 AND PV:9999999999, every key starting with 1-9
//     (the seed's form, and ten-digit numbers, which have one form only),
//     read whole and sorted by number.
//
// Neither range holds PV:current or PV:latest ('c' and 'l' sort after the
// digits) nor the G: and PE: items beside them.
const (
	lastPaddedVersionSK = "PV:0999999999"
	firstSeedVersionSK  = "PV:1"
	lastSeedVersionSK   = "PV:9999999999"
)

// DefaultVersionsPageSize is the page size of Versions.List when
// ListOptions.Limit is 0.
const DefaultVersionsPageSize = 100

// MaxSeedFormVersions bounds how many versions in the seed's unpadded form
// (PV:3) one pipeline may have for Versions.List: they do not sort by number
// in the table, so every page reads all of them. More fail with
// ErrTooManySeedVersions; Versions.Get still reads each.
const MaxSeedFormVersions = 10_000

// ErrTooManySeedVersions: a pipeline has more than MaxSeedFormVersions
// versions written in the seed's unpadded form, too many to order in
// memory for Versions.List.
var ErrTooManySeedVersions = errors.New("pipeline: too many versions in the seed's unpadded form to list in order")

// versionPos is a version's place in Versions.List's order: by number, and
// for one number written in both forms, the padded item first.
type versionPos struct {
	n    int
	seed bool // the seed's unpadded form (PV:3)
}

func (a versionPos) less(b versionPos) bool {
	if a.n != b.n {
		return a.n < b.n
	}
	return !a.seed && b.seed
}

func (a versionPos) String() string {
	if a.seed {
		return strconv.Itoa(a.n) + ".seed"
	}
	return strconv.Itoa(a.n) + ".padded"
}

// parseVersionSK gives the place of a version sort key; ok is false for a
// key of neither form (PV:007, PV:1x), which is not a version.
func parseVersionSK(sk string) (versionPos, bool) {
	digits, found := strings.CutPrefix(sk, "PV:")
	if !found || len(digits) == 0 || len(digits) > 10 {
		return versionPos{}, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > maxVersion || strings.ContainsAny(digits, "+-") {
		return versionPos{}, false
	}
	switch {
	case len(digits) == 10: // padded, or a ten-digit number: one form
		return versionPos{n: n}, true
	case digits[0] != '0':
		return versionPos{n: n, seed: true}, true
	}
	return versionPos{}, false
}

func parseVersionPos(s string) (versionPos, bool) {
	num, form, ok := strings.Cut(s, ".")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || n > maxVersion || strconv.Itoa(n) != num || (form != "seed" && form != "padded") {
		return versionPos{}, false
	}
	return versionPos{n: n, seed: form == "seed"}, true
}

type versionEntry struct {
	pos  versionPos
	item pipelineItem
}

// versionRow is a version item read in either form, with its sort key:
// the seed's unpadded keys (PV:3) are no "version" entity's, so the
// listing reads the table's items as they are.
type versionRow struct {
	SK string `dynamodbav:"sk"`
	pipelineItem
}

func (r versionRow) of(id string) pipelineItem {
	r.pipelineItem.ID = id
	return r.pipelineItem
}

// List is the listing of the versions of pipeline id (ListOptions.Limit
// per page; 0: DefaultVersionsPageSize), by version number, oldest first, whichever form each was written
// in. A number written in both forms (PV:0000000003 and the seed's PV:3,
// by two services) is listed twice, the padded item first: the two are
// distinct items, and Get returns the padded one. The cursor is the
// last (number, form) returned, bound by an HMAC to the table and the
// pipeline, so a page resumes exactly after it. A pipeline that does not
// exist has no versions: an empty page.
//
// Each page reads up to Limit+1 padded versions and every version in the
// seed's form (they do not sort by number in the table); a pipeline with
// more than MaxSeedFormVersions of those fails with ErrTooManySeedVersions.
func (h *Versions) List(id string, opts ...func(*ListOptions)) table.List[*Pipeline] {
	s := h.store()
	limit := listOptions(opts).Limit
	var limitErr error
	if limit < 0 || limit > maxLimit {
		limitErr = inputError("Limit", limit, "must be between 0 and 1048576")
	}
	if limit == 0 {
		limit = DefaultVersionsPageSize
	}
	return newList(s, "pipeline.Versions.List", firstErr(validateID("id", id), limitErr),
		func(ctx context.Context, cursor string) (table.Page[*Pipeline], error) {
			return s.versionsPage(ctx, id, cursor, limit)
		})
}

func (s *Store) versionsPage(ctx context.Context, id, cursor string, limit int) (table.Page[*Pipeline], error) {
	binding := "listVersions\x00" + s.t.Name() + "\x00" + id
	after := versionPos{}
	if cursor != "" {
		raw, err := s.decodeCursor("Versions.List", binding, cursor)
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		var ok bool
		if after, ok = parseVersionPos(raw); !ok {
			return table.Page[*Pipeline]{}, cursorError(cursor, "not a Versions.List position")
		}
	}
	pk, _ := pipelinePK.Build(id)

	// The padded versions after the cursor, in order: one more than a
	// page, to know whether more follow.
	var padded []versionEntry
	if first := after.n + 1; first < 1_000_000_000 {
		lo, _ := versionSK.Build(first)
		q := table.Query{Partition: pk, Sort: table.SortBetween(lo, lastPaddedVersionSK), Consistent: true, Limit: int32(min(limit+1, maxLimit))}
		for it, err := range table.QueryAll[versionRow](ctx, s.t, q) {
			if err != nil {
				return table.Page[*Pipeline]{}, err
			}
			if pos, ok := parseVersionSK(it.SK); ok && !pos.seed {
				padded = append(padded, versionEntry{pos, it.of(id)})
			}
			if len(padded) > limit {
				break
			}
		}
	}
	// Every version in the seed's form (and ten-digit ones), sorted.
	var seed []versionEntry
	q := table.Query{Partition: pk, Sort: table.SortBetween(firstSeedVersionSK, lastSeedVersionSK), Consistent: true}
	for it, err := range table.QueryAll[versionRow](ctx, s.t, q) {
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		if pos, ok := parseVersionSK(it.SK); ok && after.less(pos) {
			if seed = append(seed, versionEntry{pos, it.of(id)}); len(seed) > MaxSeedFormVersions {
				return table.Page[*Pipeline]{}, fmt.Errorf("%w: pipeline %q has more than %d", ErrTooManySeedVersions, id, MaxSeedFormVersions)
			}
		}
	}
	slices.SortFunc(seed, func(a, b versionEntry) int { return cmp.Compare(a.pos.n, b.pos.n) })

	var page table.Page[*Pipeline]
	var last versionPos
	for len(padded)+len(seed) > 0 {
		if len(page.Items) == limit {
			page.Next = s.encodeCursor(binding, last.String())
			break
		}
		var next versionEntry
		if len(seed) == 0 || (len(padded) > 0 && padded[0].pos.less(seed[0].pos)) {
			next, padded = padded[0], padded[1:]
		} else {
			next, seed = seed[0], seed[1:]
		}
		p, err := next.item.pipeline()
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		page.Items = append(page.Items, p)
		last = next.pos
	}
	return page, nil
}
