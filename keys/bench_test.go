package keys

import (
	"testing"
	"time"
)

var benchKey string

func BenchmarkBuild(b *testing.B) {
	at := time.Date(2025, 11, 1, 20, 30, 15, 234567000, time.UTC)
	values := []any{1, "raw_analysis", 1, at}
	b.ReportAllocs()
	for b.Loop() {
		k, err := jobSK.Build(values...)
		if err != nil {
			b.Fatal(err)
		}
		benchKey = k
	}
}

func BenchmarkPrefix(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		k, err := ruleSK.Prefix("raw_analysis")
		if err != nil {
			b.Fatal(err)
		}
		benchKey = k
	}
}

func BenchmarkParse(b *testing.B) {
	const key = "JOB#01#raw_analysis#001#2025-11-01T20:30:15.234567Z"
	b.ReportAllocs()
	for b.Loop() {
		p, err := jobSK.Parse(key)
		if err != nil {
			b.Fatal(err)
		}
		benchKey = p.String("stageId")
	}
}

func BenchmarkMatch(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !jobSK.Match("JOB#01#raw_analysis#001#2025-11-01T20:30:15.234567Z") || jobSK.Match("STAGE#01#raw_analysis") {
			b.Fatal("Match")
		}
	}
}
