package pipeline_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tablekit/tablekit/pipeline"
)

func BenchmarkCreate(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	in := pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "plant", Value: "abc"},
		{Key: "region", Value: "usa/northwest/seattle"}}, Groups: []string{"/usa"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.store.Create(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdateMovingOneTag(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	regions := []string{"usa/northwest/seattle", "usa/northwest/portland"}
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "region", Value: regions[0]}}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		p, err = e.store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "region", Value: regions[i%2]}}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListByTags reads the first page of 25 for tag queries on 2,000
// pipelines: one tag (about a third of the pipelines match), and two tags
// whose intersection is smaller than either.
func BenchmarkListByTags(b *testing.B) {
	e := newEnv(b)
	createMany(b, e, 2000, rand.New(rand.NewPCG(4, 2026)))
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		tags []pipeline.Tag
	}{
		{"one-tag", []pipeline.Tag{{Key: "env", Value: "prod"}}},
		{"two-tags", []pipeline.Tag{{Key: "env", Value: "prod"}, {Key: "region", Value: "usa/northwest"}}},
		{"three-tags", []pipeline.Tag{{Key: "env", Value: "prod"}, {Key: "source", Value: "sap"}, {Key: "region", Value: "eu"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			e.db.ResetCalls()
			n := 0
			for b.Loop() {
				page, err := e.store.Pipelines().ByTags(bc.tags, pipeline.Limit(25)).Page(ctx, "")
				if err != nil || len(page.Items) == 0 {
					b.Fatal(len(page.Items), err)
				}
				n++
			}
			b.ReportMetric(float64(e.db.Calls("Query"))/float64(n), "queries/op")
			b.ReportMetric(float64(e.db.Calls("BatchGetItem"))/float64(n), "batchgets/op")
		})
	}
}
