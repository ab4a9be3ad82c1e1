package owndata

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FieldError is a setting refused before any work: Field is the configuration field that
// holds it, by its Go name as a caller sets it (a field of Config, EstimateConfig or
// TestConfig, through the embedded Columns and Nets: "LearningRate", "Lambda", "Z",
// "ZMap.Features"), Value its value, and Err what is wrong with it. The library's
// messages name the fields a Go caller set; the command line maps Field to the flag its
// user typed ("-lr"), so that the same problem reads in each caller's own words.
type FieldError struct {
	Field string
	Value any // nil when the problem is the field's absence
	Err   error
}

// Error renders the error as "Field value: what is wrong", or "Field: what is wrong".
func (e *FieldError) Error() string {
	if e.Value == nil {
		return e.Field + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s %s: %v", e.Field, valueText(e.Value), e.Err)
}

// Unwrap returns what is wrong.
func (e *FieldError) Unwrap() error { return e.Err }

// fieldError returns a *FieldError of field and value whose Err is the formatted message.
func fieldError(field string, value any, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

// valueText renders a setting's value as a user would have typed it: numbers in their
// shortest form, lists comma-separated, text quoted only when empty.
func valueText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []int, []uint64: // fmt writes "[1 2 3]"
		return strings.Join(strings.Fields(strings.Trim(fmt.Sprint(x), "[]")), ",")
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// warner collects warnings and writes each to w as it arises; an empty one is no warning.
type warner struct {
	w   io.Writer
	all []string
}

func (k *warner) add(ws ...string) {
	for _, s := range ws {
		if s == "" {
			continue
		}
		k.all = append(k.all, s)
		if k.w != nil {
			fmt.Fprintln(k.w, "warning:", s)
		}
	}
}

// orDiscard returns w, or io.Discard when w is nil.
func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// await runs f in its own goroutine and returns its result, or ctx's error as soon as ctx
// is done, whichever comes first. It is how a step that takes no context (the training of
// a network in package train, a prediction of its graph) stops within moments of SIGINT:
// f is then abandoned and runs to its end in the background, and its result is dropped.
// f must write nothing a later step reads (it only computes); every file is written by
// the caller, after await returned f's result.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
