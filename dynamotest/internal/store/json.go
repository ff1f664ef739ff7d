package store

import (
	"encoding/base64"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
)

// AppendJSON appends the encoded item as DynamoDB's JSON protocol writes an
// item, {"name":{"S":"..."},...}, to dst. It is the JSON the wire package
// writes for Decode(data), attribute order aside, built without the map:
// a server answering a read from stored items needs nothing else, and an
// item whose strings were all found verbatim when it was written is copied
// rather than escaped.
func AppendJSON(dst []byte, data string) []byte {
	if data == "" {
		return append(dst, "{}"...)
	}
	d := decoder{s: data}
	n, _, _, flags := d.header()
	j := jsonWriter{b: dst, verbatim: flags&flagVerbatim != 0}
	j.b = append(j.b, '{')
	for i := range n {
		if i > 0 {
			j.b = append(j.b, ',')
		}
		j.string(d.str())
		j.b = append(j.b, ':')
		j.value(&d)
	}
	return append(j.b, '}')
}

type jsonWriter struct {
	b        []byte
	verbatim bool
}

func (j *jsonWriter) string(s string) {
	if !j.verbatim {
		j.b = wire.AppendString(j.b, s)
		return
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, s...)
	j.b = append(j.b, '"')
}

// number writes a number, which is always verbatim.
func (j *jsonWriter) number(s string) {
	j.b = append(j.b, '"')
	j.b = append(j.b, s...)
	j.b = append(j.b, '"')
}

func (j *jsonWriter) blob(s string) {
	j.b = append(j.b, '"')
	j.b = base64.StdEncoding.AppendEncode(j.b, stringBytes(s))
	j.b = append(j.b, '"')
}

// list writes n elements between brackets, each by elem.
func (j *jsonWriter) list(n int, elem func()) {
	j.b = append(j.b, '[')
	for i := range n {
		if i > 0 {
			j.b = append(j.b, ',')
		}
		elem()
	}
	j.b = append(j.b, ']')
}

func (j *jsonWriter) value(d *decoder) {
	tag := d.s[d.pos]
	d.pos++
	switch tag {
	case tagS:
		j.b = append(j.b, `{"S":`...)
		j.string(d.str())
	case tagN:
		j.b = append(j.b, `{"N":`...)
		j.number(d.str())
	case tagB:
		j.b = append(j.b, `{"B":`...)
		j.blob(d.str())
	case tagTrue:
		j.b = append(j.b, `{"BOOL":true`...)
	case tagFalse:
		j.b = append(j.b, `{"BOOL":false`...)
	case tagNull:
		j.b = append(j.b, `{"NULL":true`...)
	case tagSS:
		j.b = append(j.b, `{"SS":`...)
		j.list(d.uvarint(), func() { j.string(d.str()) })
	case tagNS:
		j.b = append(j.b, `{"NS":`...)
		j.list(d.uvarint(), func() { j.number(d.str()) })
	case tagBS:
		j.b = append(j.b, `{"BS":`...)
		j.list(d.uvarint(), func() { j.blob(d.str()) })
	case tagL:
		j.b = append(j.b, `{"L":`...)
		j.list(d.uvarint(), func() { j.value(d) })
	case tagM:
		j.b = append(j.b, `{"M":{`...)
		for i := range d.uvarint() {
			if i > 0 {
				j.b = append(j.b, ',')
			}
			j.string(d.str())
			j.b = append(j.b, ':')
			j.value(d)
		}
		j.b = append(j.b, '}')
	}
	j.b = append(j.b, '}')
}
