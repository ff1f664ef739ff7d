package wire

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// Items are most of every request and response, so they bypass reflection:
// an item is a map[string]types.AttributeValue walked with a type switch.

func encodeItemField(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.item(v.Interface().(map[string]types.AttributeValue))
}

func encodeAttributeValueField(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.attributeValue(v.Interface().(types.AttributeValue))
}

func (e *encoder) item(m map[string]types.AttributeValue) {
	e.buf = append(e.buf, '{')
	first := true
	for k, av := range m {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.string(k)
		e.buf = append(e.buf, ':')
		e.attributeValue(av)
	}
	e.buf = append(e.buf, '}')
}

// attributeValue writes one union. A nil value, which no valid item holds,
// writes null rather than inventing a type.
func (e *encoder) attributeValue(av types.AttributeValue) {
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		e.buf = append(e.buf, `{"S":`...)
		e.string(av.Value)
	case *types.AttributeValueMemberN:
		e.buf = append(e.buf, `{"N":`...)
		e.string(av.Value)
	case *types.AttributeValueMemberB:
		e.buf = append(e.buf, `{"B":`...)
		e.blob(av.Value)
	case *types.AttributeValueMemberBOOL:
		e.buf = append(e.buf, `{"BOOL":`...)
		if av.Value {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *types.AttributeValueMemberNULL:
		e.buf = append(e.buf, `{"NULL":`...)
		if av.Value {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *types.AttributeValueMemberM:
		e.buf = append(e.buf, `{"M":`...)
		if av.Value == nil {
			e.buf = append(e.buf, "{}"...)
		} else {
			e.item(av.Value)
		}
	case *types.AttributeValueMemberL:
		e.buf = append(e.buf, `{"L":[`...)
		for i, v := range av.Value {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.attributeValue(v)
		}
		e.buf = append(e.buf, ']')
	case *types.AttributeValueMemberSS:
		e.buf = append(e.buf, `{"SS":[`...)
		for i, v := range av.Value {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.string(v)
		}
		e.buf = append(e.buf, ']')
	case *types.AttributeValueMemberNS:
		e.buf = append(e.buf, `{"NS":[`...)
		for i, v := range av.Value {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.string(v)
		}
		e.buf = append(e.buf, ']')
	case *types.AttributeValueMemberBS:
		e.buf = append(e.buf, `{"BS":[`...)
		for i, v := range av.Value {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.blob(v)
		}
		e.buf = append(e.buf, ']')
	default:
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '}')
}

func decodeItemField(d *decoder, v reflect.Value) error {
	m, err := d.item()
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(m))
	return nil
}

func decodeAttributeValueField(d *decoder, v reflect.Value) error {
	av, err := d.attributeValue()
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(&av).Elem())
	return nil
}

// item reads a JSON object of attribute values. A null member is skipped, as
// an absent attribute.
func (d *decoder) item() (map[string]types.AttributeValue, error) {
	if err := d.enter('{'); err != nil {
		return nil, d.container(err, kindMap, d.elem, javaPackage+"AttributeValue")
	}
	m := make(map[string]types.AttributeValue)
	for i := 0; ; i++ {
		if more, err := d.more(i, '}'); !more {
			return m, err
		}
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		if null, err := d.isNull(); null || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		d.elem = true
		av, err := d.attributeValue()
		if err != nil {
			return nil, err
		}
		m[k] = av
	}
}

// The AttributeValue members, as bits, to see which a union sets.
const (
	memberS = 1 << iota
	memberN
	memberB
	memberBOOL
	memberNULL
	memberM
	memberL
	memberSS
	memberNS
	memberBS
)

// attributeValue reads one union. Members it does not know are skipped and a
// null member counts as unset, as DynamoDB reads them. A union with no
// member set, or several, is not an error here: DynamoDB checks a request's
// other members first, so it reads as attr.Invalid, whose message the
// operation reports where it checks its values. With several members,
// DynamoDB checks each member's value in turn before it counts them.
func (d *decoder) attributeValue() (types.AttributeValue, error) {
	if err := d.enter('{'); err != nil {
		return nil, d.container(err, kindStruct, d.elem, javaPackage+"AttributeValue")
	}
	var (
		set    int
		av     types.AttributeValue
		others []types.AttributeValue // the members before av, when several are set
	)
	for i := 0; ; i++ {
		more, err := d.more(i, '}')
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		k, err := d.keyBytes()
		if err != nil {
			return nil, err
		}
		bit := 0
		switch string(k) {
		case "S":
			bit = memberS
		case "N":
			bit = memberN
		case "B":
			bit = memberB
		case "BOOL":
			bit = memberBOOL
		case "NULL":
			bit = memberNULL
		case "M":
			bit = memberM
		case "L":
			bit = memberL
		case "SS":
			bit = memberSS
		case "NS":
			bit = memberNS
		case "BS":
			bit = memberBS
		}
		if bit == 0 {
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		if null, err := d.isNull(); null || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		if set != 0 {
			others = append(others, av)
		}
		d.elem = false
		if av, err = d.attributeMember(bit); err != nil {
			return nil, err
		}
		set |= bit
	}
	switch {
	case set == 0:
		return d.standIn(attr.EmptyMessage)
	case set&(set-1) != 0:
		for _, m := range append(others, av) {
			if err := attr.Validate(m); err != nil {
				return d.standIn(err.Error())
			}
		}
		return d.standIn(attr.MultipleMessage)
	}
	return av, nil
}

// standIn is what a union that is not one decodes as: attr.Invalid, or
// when decoding strictly a *ValidationError.
func (d *decoder) standIn(message string) (types.AttributeValue, error) {
	if d.strict {
		return nil, &ValidationError{Message: message}
	}
	d.invalid = true
	return attr.Invalid(message), nil
}

func (d *decoder) attributeMember(bit int) (types.AttributeValue, error) {
	switch bit {
	case memberS:
		s, err := d.str()
		return &types.AttributeValueMemberS{Value: s}, err
	case memberN:
		s, err := d.str()
		return &types.AttributeValueMemberN{Value: s}, err
	case memberB:
		b, err := d.blob()
		return &types.AttributeValueMemberB{Value: b}, err
	case memberBOOL:
		b, err := d.boolean()
		return &types.AttributeValueMemberBOOL{Value: b}, err
	case memberNULL:
		b, err := d.boolean()
		return &types.AttributeValueMemberNULL{Value: b}, err
	case memberM:
		m, err := d.item()
		return &types.AttributeValueMemberM{Value: m}, err
	case memberL:
		var l []types.AttributeValue
		err := d.list(func() error {
			av, err := d.attributeValue()
			l = append(l, av)
			return err
		})
		if l == nil {
			l = []types.AttributeValue{}
		}
		return &types.AttributeValueMemberL{Value: l}, err
	case memberSS, memberNS:
		ss := []string{}
		err := d.list(func() error {
			s, err := d.str()
			ss = append(ss, s)
			return err
		})
		if bit == memberSS {
			return &types.AttributeValueMemberSS{Value: ss}, err
		}
		return &types.AttributeValueMemberNS{Value: ss}, err
	default: // memberBS
		bs := [][]byte{}
		err := d.list(func() error {
			b, err := d.blob()
			bs = append(bs, b)
			return err
		})
		return &types.AttributeValueMemberBS{Value: bs}, err
	}
}

// list reads a JSON array, calling elem for each element.
func (d *decoder) list(elem func() error) error {
	if err := d.enter('['); err != nil {
		return d.container(err, kindList, d.elem, "")
	}
	for i := 0; ; i++ {
		if more, err := d.more(i, ']'); !more {
			return err
		}
		d.elem = true
		if err := elem(); err != nil {
			return err
		}
	}
}
