package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Sort key of a version item (seed: sk "PV:<versionNo>"), under the
// pipeline's pk. This package writes the number zero-padded to ten digits
// (PV:0000000003) so that versions sort numerically (PV:0000000002 before
// PV:0000000010) and "list versions" is one key condition that reads
// versions only, never PV:current or the G: membership items beside them.
// It reads the seed's unpadded form (PV:3) too: see GetVersion and
// Versions.
var (
	// SK "PV:0000000003"
	versionSK = keys.MustSort("PV:{version:010d}", delimiter)
)

// seedVersionSK is the sort key the seed writes for a version: PV:3.
func seedVersionSK(version int) string { return "PV:" + strconv.Itoa(version) }

// maxVersion is the largest version versionSK holds.
const maxVersion = 9_999_999_999

// GetVersion returns version of pipeline id as it was written.
func (s *Store) GetVersion(ctx context.Context, id string, version int) (*Pipeline, error) {
	pk, sk, err := versionKey(id, version)
	if err != nil {
		return nil, err
	}
	var it pipelineItem
	err = s.t.Get(ctx, s.t.Key(pk, sk), &it)
	if errors.Is(err, table.ErrNotFound) {
		// Written by a service that follows the seed: PV:3, unpadded.
		err = s.t.Get(ctx, s.t.Key(pk, seedVersionSK(version)), &it)
	}
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound("pipeline version", fmt.Sprintf("%s@%d", id, version), err)
		}
		return nil, err
	}
	return it.pipeline()
}

func versionKey(id string, version int) (pk, sk string, err error) {
	if err := validateID("id", id); err != nil {
		return "", "", err
	}
	if version < 1 || version > maxVersion {
		return "", "", inputError("version", version, fmt.Sprintf("versions are 1 to %d", maxVersion))
	}
	pk, _ = pipelinePK.Build(id)
	sk, _ = versionSK.Build(version)
	return pk, sk, nil
}

// versionsQuery reads the version items of a pipeline on the base table:
// the seed lists them on GSI-1, but GSI-1's sort key is pk, which is the
// same for every version, and versions stay out of GSI-1 (see the package
// doc). BETWEEN PV:0000000001 AND PV:9999999999 holds every sort key of
// "PV:" and a digit, so it reads the seed's unpadded PV:3 as well, and
// never PV:current or PV:latest ('c' and 'l' sort after the digits).
func versionsQuery(id string) (table.Query, error) {
	if err := validateID("id", id); err != nil {
		return table.Query{}, err
	}
	pk, _ := pipelinePK.Build(id)
	first, _ := versionSK.Build(1)
	last, _ := versionSK.Build(maxVersion)
	return table.Query{Partition: pk, Sort: table.SortBetween(first, last), Consistent: true}, nil
}

// ListVersions returns one page of versions of pipeline id
// (ListOptions.Limit; 0: what one DynamoDB page holds), and the next
// page's cursor, in sort key order: the versions this package wrote,
// oldest first, then any in the seed's unpadded form in text order (PV:1,
// PV:10, PV:2: DynamoDB orders them as text, and a cursor must resume
// where the order left off). A version has one sort key, so there are no
// ties. A pipeline that does not exist has no versions: an empty page.
func (s *Store) ListVersions(ctx context.Context, id, cursor string, opts ...func(*ListOptions)) (table.Page[*Pipeline], error) {
	q, err := versionsQuery(id)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	if q, err = pageQuery(q, opts); err != nil {
		return table.Page[*Pipeline]{}, err
	}
	return pipelinePage(table.QueryPage[pipelineItem](ctx, s.t, q, cursor))
}

// Versions iterates over every version of pipeline id in ListVersions's
// order.
func (s *Store) Versions(ctx context.Context, id string, opts ...func(*ListOptions)) iter.Seq2[*Pipeline, error] {
	return walk(func(cursor string) (table.Page[*Pipeline], error) { return s.ListVersions(ctx, id, cursor, opts...) })
}
