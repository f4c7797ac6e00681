package backup

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// appendValue writes v, as scanned from either engine, as the JSON of column kind k.
func appendValue(b []byte, k kind, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	switch k {
	case kText:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			return nil, fmt.Errorf("text column holds %T", v)
		}
		return appendJSONString(b, s)
	case kInt, kBool:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case bool:
			if x {
				n = 1
			}
		default:
			return nil, fmt.Errorf("%s column holds %T", k, v)
		}
		if k == kBool {
			return strconv.AppendBool(b, n != 0), nil
		}
		return strconv.AppendInt(b, n, 10), nil
	case kFloat:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		default:
			return nil, fmt.Errorf("float column holds %T", v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("float column holds %v, which JSON cannot write", f)
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64), nil
	case kBytes:
		var raw []byte
		switch x := v.(type) {
		case []byte:
			raw = x
		case string:
			raw = []byte(x)
		default:
			return nil, fmt.Errorf("bytes column holds %T", v)
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, raw)
		return append(b, '"'), nil
	}
	return nil, fmt.Errorf("unknown column kind %q", k)
}

func appendJSONString(b []byte, s string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// decodeRow reads one JSON line into the values to insert, one per column.
func decodeRow(line []byte, columns []Column) ([]any, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, err
	}
	if len(raw) != len(columns) {
		return nil, fmt.Errorf("%d values for %d columns", len(raw), len(columns))
	}
	out := make([]any, len(raw))
	for i, r := range raw {
		v, err := decodeValue(r, columns[i].Kind)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", columns[i].Name, err)
		}
		out[i] = v
	}
	return out, nil
}

func decodeValue(r json.RawMessage, k kind) (any, error) {
	if string(r) == "null" {
		return nil, nil
	}
	switch k {
	case kText:
		var s string
		err := json.Unmarshal(r, &s)
		return s, err
	case kInt:
		return strconv.ParseInt(string(r), 10, 64)
	case kFloat:
		return strconv.ParseFloat(string(r), 64)
	case kBool:
		var v bool
		err := json.Unmarshal(r, &v)
		return v, err
	case kBytes:
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, fmt.Errorf("unknown column kind %q", k)
}
