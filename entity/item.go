package entity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// encode validates v (the struct value ptr points at) and returns its
// item: the attributes attributevalue writes, less KeyOnly ones, plus the
// table and index keys and the type attribute. An item over the offload
// threshold has its offloadable attributes moved to the blob store first
// (S3 before DynamoDB, so no item points at a missing object); one still
// over DynamoDB's 400 KB is refused with table.ErrItemTooLarge. Nothing is
// written to DynamoDB here.
func (m *model) encode(ctx context.Context, v reflect.Value, ptr any) (table.Item, int, error) {
	if err := m.validate(v); err != nil {
		return nil, 0, err
	}
	item, err := attributevalue.MarshalMap(ptr)
	if err != nil {
		return nil, 0, inputError(m.name, m.typ.String(), "cannot marshal: "+err.Error(), nil)
	}
	if err := m.addKeys(item, v); err != nil {
		return nil, 0, err
	}
	item, size, err := m.fit(ctx, item)
	if err != nil || len(m.renamed) == 0 {
		return item, size, err
	}
	if err := m.writeRenamed(item); err != nil {
		return nil, 0, err
	}
	return item, table.ItemSize(item), nil
}

// addKeys completes a marshaled item with its keys and type attribute.
func (m *model) addKeys(item table.Item, v reflect.Value) error {
	for _, f := range m.keyOnly {
		delete(item, f.name)
	}
	if err := m.putKey(item, &m.pk, v); err != nil {
		return err
	}
	if m.sk.attr.Name != "" {
		if err := m.putKey(item, &m.sk, v); err != nil {
			return err
		}
	}
	for i := range m.indexes {
		ix := &m.indexes[i]
		if ix.sparse && ix.absent(v) {
			for _, k := range [2]*keyPart{&ix.pk, &ix.sk} {
				if k.own != nil {
					delete(item, k.attr.Name)
				}
			}
			continue
		}
		if err := m.putKey(item, &ix.pk, v); err != nil {
			return err
		}
		if err := m.putKey(item, &ix.sk, v); err != nil {
			return err
		}
	}
	if m.typeAttr != "" {
		item[m.typeAttr] = m.typeValue
	}
	if m.extra != nil {
		for name, av := range v.FieldByIndex(m.extra).Interface().(map[string]types.AttributeValue) {
			if m.known[name] {
				return inputError(m.name+" Extra", name, "is an attribute the entity writes itself", nil)
			}
			item[name] = av
		}
	}
	return nil
}

func (m *model) putKey(item table.Item, k *keyPart, v reflect.Value) error {
	switch {
	case !k.present():
		return nil
	case k.own != nil:
		// Marshaled with the item; an empty one is refused as DynamoDB
		// would refuse it.
		_, err := ownValue(m.name, k.own, v)
		return err
	}
	av, err := k.build(m.name, v)
	if err != nil {
		return err
	}
	item[k.attr.Name] = av
	return nil
}

// absent reports whether a field of a sparse index's templates is zero in v.
func (ix *indexPart) absent(v reflect.Value) bool {
	for _, k := range [2]*keyPart{&ix.pk, &ix.sk} {
		if k.own != nil && k.own.value(v).IsZero() {
			return true
		}
		for _, f := range k.fields {
			if fv := f.value(v); !fv.IsValid() || fv.IsZero() {
				return true
			}
		}
	}
	return false
}

// fit offloads what the item's size calls for and refuses an item that
// still does not fit DynamoDB.
func (m *model) fit(ctx context.Context, item table.Item) (table.Item, int, error) {
	size := table.ItemSize(item)
	if m.offloader != nil && size > m.reg.opts.OffloadThreshold {
		out, err := m.offloader.Offload(ctx, m.objectKey(item), item)
		if err != nil {
			return nil, 0, fmt.Errorf("entity: %s: offload: %w", m.name, err)
		}
		item, size = out, table.ItemSize(out)
	}
	if size > table.MaxItemSize {
		reason := fmt.Sprintf("item is %d bytes, over DynamoDB's %d", size, table.MaxItemSize)
		if len(m.offload) == 0 {
			reason += ", and the entity offloads no attribute (Offload)"
		} else if m.offloader == nil {
			reason += ", and the registry has no blob store to offload to (Blobs)"
		}
		return nil, 0, &table.InputError{Field: m.name, Value: m.keyOf(item).String(), Reason: reason, Err: table.ErrItemTooLarge}
	}
	return item, size, nil
}

// objectKey names an item's offloaded objects: the entity and its key,
// escaped into path segments, or their SHA-256 when that is too long for
// a blob key.
func (m *model) objectKey(item table.Item) string {
	pk, sk := keyText(item[m.pk.attr.Name]), ""
	if m.sk.attr.Name != "" {
		sk = keyText(item[m.sk.attr.Name])
	}
	k := m.name + "/" + blobstore.EscapeSegment(pk)
	if sk != "" {
		k += "/" + blobstore.EscapeSegment(sk)
	}
	if len(k) > 512 {
		sum := sha256.Sum256([]byte(pk + "\x00" + sk))
		k = m.name + "/!sha256-" + hex.EncodeToString(sum[:])
	}
	return k
}

func keyText(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return hex.EncodeToString(v.Value)
	}
	return ""
}

// decoder decodes every item of every entity: a Decoder holds only its
// options, read and never written by Decode, so one is safe for
// concurrent use and a call need not build its own.
var decoder = attributevalue.NewDecoder()

// decode reads one of the entity's items into out, a *T: offloaded
// attributes are restored from the blob store, KeyOnly attributes parsed
// back from the keys.
func (m *model) decode(ctx context.Context, item table.Item, out any) error {
	item = m.readRenamed(item)
	if m.hasPointer(item) {
		if m.offloader == nil {
			return fmt.Errorf("entity: %s %s: has offloaded attributes, and the registry has no blob store (Blobs): %w",
				m.name, m.keyOf(item), blobstore.ErrUnsupported)
		}
		restored, err := m.offloader.Restore(ctx, item)
		if err != nil {
			return fmt.Errorf("entity: %s %s: %w", m.name, m.keyOf(item), err)
		}
		item = restored
	}
	if err := decoder.Decode(&types.AttributeValueMemberM{Value: item}, out); err != nil {
		return fmt.Errorf("entity: %s %s: decode: %w", m.name, m.keyOf(item), err)
	}
	if len(m.keyOnly) > 0 {
		if err := m.fillKeyOnly(item, reflect.ValueOf(out).Elem()); err != nil {
			return err
		}
	}
	if m.extra != nil {
		m.fillExtra(item, reflect.ValueOf(out).Elem())
	}
	return nil
}

// fillExtra gives v's Extra field the attributes of item the entity does
// not know, nil when there are none.
func (m *model) fillExtra(item table.Item, v reflect.Value) {
	var extra map[string]types.AttributeValue
	for name, av := range item {
		if !m.known[name] {
			if extra == nil {
				extra = map[string]types.AttributeValue{}
			}
			extra[name] = av
		}
	}
	v.FieldByIndex(m.extra).Set(reflect.ValueOf(extra))
}

// decodeAny decodes item into a new value of the entity's type.
func (m *model) decodeAny(ctx context.Context, item table.Item) (any, error) {
	p := reflect.New(m.typ)
	if err := m.decode(ctx, item, p.Interface()); err != nil {
		return nil, err
	}
	return p.Elem().Interface(), nil
}

// hasPointer reports whether an offloadable attribute of item is an
// offload pointer.
func (m *model) hasPointer(item table.Item) bool {
	for _, name := range m.offNames {
		if _, ok := blobstore.PointerOf(item[name]); ok {
			return true
		}
	}
	return false
}

// fillKeyOnly sets the KeyOnly fields of v from the key attributes of item.
func (m *model) fillKeyOnly(item table.Item, v reflect.Value) error {
	done := map[*keyPart]bool{}
	for _, f := range m.keyOnly {
		k := m.keyPartOf(f)
		if done[k] {
			continue
		}
		done[k] = true
		s, ok := item[k.attr.Name].(*types.AttributeValueMemberS)
		if !ok {
			continue // a sparse index the item is not in
		}
		parts, err := k.tmpl.Parse(s.Value)
		if err != nil {
			return fmt.Errorf("entity: %s: %s %q: %w", m.name, k.attr.Name, s.Value, err)
		}
		for i, pf := range k.fields {
			if !containsField(m.keyOnly, pf) {
				continue
			}
			fv := pf.settable(v)
			switch val := parts.Values()[i].(type) {
			case string:
				fv.SetString(val)
			case int:
				if fv.CanInt() {
					fv.SetInt(int64(val))
				} else {
					fv.SetUint(uint64(val))
				}
			default:
				fv.Set(reflect.ValueOf(val))
			}
		}
	}
	return nil
}

func containsField(fs []*field, f *field) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}
