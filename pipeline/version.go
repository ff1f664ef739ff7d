package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Sort key of a version item (seed: sk "PV:<versionNo>"), under the
// pipeline's pk. The number is zero-padded so that versions sort
// numerically (PV:0000000002 before PV:0000000010) and a key condition
// BETWEEN the first and last possible version reads versions only, never
// PV:current or the G: membership items beside them.
var (
	// SK "PV:0000000003"
	versionSK = keys.MustSort("PV:{version:010d}", delimiter)
)

// maxVersion is the largest version versionSK holds.
const maxVersion = 9_999_999_999

// GetVersion returns version of pipeline id as it was written.
func (s *Store) GetVersion(ctx context.Context, id string, version int) (*Pipeline, error) {
	if s.err != nil {
		return nil, s.err
	}
	pk, sk, err := versionKey(id, version)
	if err != nil {
		return nil, err
	}
	var it pipelineItem
	if err := s.t.Get(ctx, s.t.Key(pk, sk), &it); err != nil {
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
// doc).
func versionsQuery(id string) (table.Query, error) {
	if err := validateID("id", id); err != nil {
		return table.Query{}, err
	}
	pk, _ := pipelinePK.Build(id)
	first, _ := versionSK.Build(1)
	last, _ := versionSK.Build(maxVersion)
	return table.Query{Partition: pk, Sort: table.SortBetween(first, last), Consistent: true}, nil
}

// Versions returns one page of at most limit versions of pipeline id,
// oldest first (0: what one DynamoDB page holds), and the next page's
// cursor. A pipeline that does not exist has no versions: an empty page.
func (s *Store) Versions(ctx context.Context, id string, limit int, cursor string) (table.Page[*Pipeline], error) {
	if s.err != nil {
		return table.Page[*Pipeline]{}, s.err
	}
	q, err := versionsQuery(id)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	if q, err = pageQuery(q, limit); err != nil {
		return table.Page[*Pipeline]{}, err
	}
	return pipelinePage(table.QueryPage[pipelineItem](ctx, s.t, q, cursor))
}

// AllVersions iterates over every version of pipeline id, oldest first.
func (s *Store) AllVersions(ctx context.Context, id string) iter.Seq2[*Pipeline, error] {
	q, err := versionsQuery(id)
	if err == nil {
		err = s.err
	}
	return pipelineSeq(err, table.QueryAll[pipelineItem](ctx, s.t, q))
}
