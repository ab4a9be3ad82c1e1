package owndata

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/invmmd/invmmd/invmmd/settings"
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
			p := v.Addr().Interface()
			if v.Kind() == reflect.String { // a named choice (ZKind, Objective, Represent) as its text
				p = v.Addr().Convert(reflect.TypeFor[*string]()).Interface()
			}
			switch p := p.(type) {
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

// TestCommittedConfigResumes: a config.json written before the settings' choices were typed
// and DropUnreliable became the one field of the unreliable strata (the committed
// figures/tables/checks/chile_fit_config.json, drop_unreliable true, objective robust) is
// read back as the settings the same command asks for today, so that -resume keeps its
// runs, and the settings are written back byte for byte as they were.
func TestCommittedConfigResumes(t *testing.T) {
	b, err := os.ReadFile("../../figures/tables/checks/chile_fit_config.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	var stored Settings
	if err := json.Unmarshal(rec.Settings, &stored); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig() // invmmd fit -data data/chile/chile.csv -y vote -z sex -z-positive F ...
	cfg.Data, cfg.Y, cfg.Z, cfg.ZPositive = "data/chile/chile.csv", "vote", "sex", "F"
	want := settingsOf(cfg, stored.DataHash)
	want.Backend = stored.Backend // the machine's, not the settings'
	if d := settings.DiffValues(stored, want); len(d) > 0 || !stored.DropUnreliable || stored.Objective != ObjectiveRobust {
		t.Errorf("the committed settings differ from today's defaults: %v (drop_unreliable %v, objective %q)", d, stored.DropUnreliable, stored.Objective)
	}
	again, err := json.MarshalIndent(stored, "  ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(rec.Settings) {
		t.Errorf("the settings are written back otherwise:\n%s\nwant\n%s", again, rec.Settings)
	}
	cfg.DropUnreliable = false
	if settingsOf(cfg, "").DropUnreliable {
		t.Error("DropUnreliable false is recorded as drop_unreliable true")
	}
}
