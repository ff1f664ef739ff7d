package table

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Marshal converts v to an Item. v is a struct (fields tagged `dynamodbav`,
// as the SDK's attributevalue package reads them), a map with string keys,
// an Item or a Key. Every tablekit call that takes an item goes through
// Marshal, so one set of encoding rules applies everywhere.
func Marshal(v any) (Item, error) {
	switch v := v.(type) {
	case nil:
		return nil, inputErr("item", "", "item is nil")
	case Item:
		return v, nil
	case Key:
		return Item(v), nil
	case *Item:
		if v == nil {
			return nil, inputErr("item", "", "item is nil")
		}
		return *v, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, inputErr("item", fmt.Sprintf("%T", v), "item is a nil pointer")
	}
	av, err := attributevalue.Marshal(v)
	if err != nil {
		return nil, inputErr("item", fmt.Sprintf("%T", v), "cannot marshal: "+err.Error())
	}
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return nil, inputErr("item", fmt.Sprintf("%T", v), "an item must marshal to a map, got "+typeName(av))
	}
	return m.Value, nil
}

// Unmarshal decodes item into out, a non-nil pointer to a struct, a map or
// an Item (which receives item itself).
func Unmarshal(item Item, out any) error {
	switch o := out.(type) {
	case *Item:
		if o == nil {
			return inputErr("out", "", "out is a nil pointer")
		}
		*o = item
		return nil
	}
	if err := checkOut(out); err != nil {
		return err
	}
	if err := attributevalue.UnmarshalMap(item, out); err != nil {
		return fmt.Errorf("table: unmarshal into %T: %w", out, err)
	}
	return nil
}

// itemDecoder unmarshals the items of one page or batch with one
// attributevalue.Decoder, as UnmarshalListOfMaps does, instead of a new
// one per item.
type itemDecoder struct{ dec *attributevalue.Decoder }

// decode is Unmarshal(item, out) for out a non-nil pointer.
func (d *itemDecoder) decode(item Item, out any) error {
	if o, ok := out.(*Item); ok {
		*o = item
		return nil
	}
	if d.dec == nil {
		d.dec = attributevalue.NewDecoder()
	}
	if err := d.dec.Decode(&types.AttributeValueMemberM{Value: item}, out); err != nil {
		return fmt.Errorf("table: unmarshal into %T: %w", out, err)
	}
	return nil
}

// checkOut requires a non-nil pointer, so a result is never silently lost.
func checkOut(out any) error {
	if _, ok := out.(*Item); ok {
		return nil
	}
	rv := reflect.ValueOf(out)
	if out == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return inputErr("out", fmt.Sprintf("%T", out), "out must be a non-nil pointer")
	}
	return nil
}
