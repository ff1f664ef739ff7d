package blobstore_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

func benchPutGet(b *testing.B, st blobstore.Store, size int) {
	body := bytes.Repeat([]byte("x"), size)
	ctx := b.Context()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		key := fmt.Sprintf("bench/%d", i%64)
		if err := st.Put(ctx, key, bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
		rc, _, err := st.Get(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}

func BenchmarkPutGet64KB(b *testing.B) {
	b.Run("Memory", func(b *testing.B) { benchPutGet(b, blobstore.NewMemory(), 64<<10) })
	b.Run("Dir", func(b *testing.B) {
		d, err := blobstore.NewDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		benchPutGet(b, d, 64<<10)
	})
	b.Run("S3-gofakes3", func(b *testing.B) {
		benchPutGet(b, newS3(b), 64<<10)
	})
}

// BenchmarkOffloadRestore1MB measures the split and the read back of an
// item with a 1 MB attribute, on Memory so only the mechanism is timed.
func BenchmarkOffloadRestore1MB(b *testing.B) {
	off, err := blobstore.NewOffloader(blobstore.NewMemory())
	if err != nil {
		b.Fatal(err)
	}
	item := table.Item{
		"PK":   &types.AttributeValueMemberS{Value: "JOB#1"},
		"body": &types.AttributeValueMemberS{Value: strings.Repeat("z", 1<<20)},
	}
	ctx := b.Context()
	b.SetBytes(1 << 20)
	for b.Loop() {
		out, err := off.Offload(ctx, "JOB#1", item)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := off.Restore(ctx, out); err != nil {
			b.Fatal(err)
		}
	}
}
