package properties

import "testing"

// TestDescribeCoversEveryType keeps the shape table in step with kinds: a type without a value
// shape would be left out of the document's property values.
func TestDescribeCoversEveryType(t *testing.T) {
	got := Describe()
	if len(got) != len(kinds) {
		t.Fatalf("Describe lists %d types, kinds has %d", len(got), len(kinds))
	}
	for _, d := range got {
		if d.Value == "" {
			t.Errorf("property type %s has no value shape in valueShapes", d.Type)
		}
		if d.Computed != IsComputed(d.Type) {
			t.Errorf("%s: Computed = %v, IsComputed says %v", d.Type, d.Computed, IsComputed(d.Type))
		}
	}
	for typ := range valueShapes {
		if !Known(typ) {
			t.Errorf("valueShapes names %s, which is not a property type", typ)
		}
	}
	for typ := range configShapes {
		if !Known(typ) {
			t.Errorf("configShapes names %s, which is not a property type", typ)
		}
	}
}
