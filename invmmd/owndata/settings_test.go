package owndata

import (
	"reflect"
	"slices"
	"testing"
)

// TestEveryFitFlagIsInTheSettings checks that -resume notices every setting of fit: each
// field of Config that has a flag, changed from its default, changes the recorded
// Settings, save those that choose what is trained (Methods, Seeds: each run's file says
// its method and seed, and the first seed is recorded as the split's) or where it goes
// (Out, Force, Resume). A flag added to Config without its line in settingsOf fails here.
func TestEveryFitFlagIsInTheSettings(t *testing.T) {
	notRecorded := []string{"Methods", "Seeds", "Out", "Force", "Resume"}
	base := settingsOf(DefaultConfig(), "")
	checked := 0
	var walk func(typ reflect.Type, index []int, path string)
	walk = func(typ reflect.Type, index []int, path string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			idx := append(slices.Clone(index), i)
			name, ok := f.Tag.Lookup("flag")
			if !ok {
				if f.Type.Kind() == reflect.Struct && f.IsExported() {
					sub := path
					if !f.Anonymous {
						sub += f.Name + "."
					}
					walk(f.Type, idx, sub)
				}
				continue
			}
			if name == "-" || slices.Contains(notRecorded, path+f.Name) {
				continue
			}
			cfg := DefaultConfig()
			v := reflect.ValueOf(&cfg).Elem().FieldByIndex(idx)
			switch p := v.Addr().Interface().(type) {
			case *string:
				*p = "other"
				if f.Name == "Represent" {
					*p = "features"
				}
			case *bool:
				*p = !*p
			case *int:
				*p++
			case *uint64:
				*p++
			case *float64:
				*p += 0.5
				cfg.Median = false // a σ is read only without the median heuristic
			case *[]int:
				*p = append(*p, 7)
			case *[]string:
				*p = append(*p, "other")
			case *[]float64:
				*p = append(*p, 2, 3)
			default:
				t.Errorf("%s (-%s): a %T this test cannot change; teach it", path+f.Name, name, p)
				continue
			}
			checked++
			if reflect.DeepEqual(settingsOf(cfg, ""), base) {
				t.Errorf("%s (-%s) changed leaves the recorded Settings as they were: -resume would keep runs of another setting (add it to settingsOf)", path+f.Name, name)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), nil, "")
	if checked < 25 {
		t.Errorf("only %d settings checked", checked)
	}
}
