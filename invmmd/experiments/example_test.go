package experiments_test

import (
	"fmt"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/train"
)

// ExampleStudyList_Owner looks up the study of the list that stores its results under a name,
// here the simulation's companion with the paper's batch split, and reads what the
// command line, merge and the notebooks read from it: its command, its default sweep at
// paper size and quick, its steps in the main job (invmmd all), and the variant the name
// stands for, whose name is derived from its fields and whose experiment is described
// without reading data.
func ExampleStudyList_Owner() {
	s, ok := experiments.Studies().Owner("sim_mf075")
	if !ok {
		fmt.Println("unknown")
		return
	}
	sw := s.Sweep
	fmt.Printf("command: invmmd %s (%s)\n", s.Name, s.Summary)
	paper, quick := sw.DefaultSweep(false), sw.DefaultSweep(true)
	fmt.Printf("paper-size sweep: methods %v, λ %v, seeds %v\n", paper.Methods, paper.Lambdas, paper.Seeds)
	fmt.Printf("quick sweep: methods %v, λ %v, seeds %v\n", quick.Methods, quick.Lambdas, quick.Seeds)
	for _, st := range s.Steps {
		fmt.Printf("main job step %s: invmmd %v\n", st.Name, st.Args)
	}
	v := experiments.Variant{Options: experiments.SimulationOptions{PaperSplit: true}, Objective: train.Objectives()[3]}
	name, _ := sw.VariantName(v)
	exp, _ := sw.Describe(v)
	fmt.Printf("results of the paper split trained with %s: under %q, %s\n", v.Objective.Name, name, exp.Title)
	_, ok = experiments.Studies().Owner("nosuch")
	fmt.Println("nosuch known:", ok)
	// Output:
	// command: invmmd sim (Experiment 1: the simulation, every method × seeds × λ)
	// paper-size sweep: methods [none obs full dr dr+ reg ip ip+ dr-po dr-po+], λ [1 5], seeds [1 2 3 4 5]
	// quick sweep: methods [none obs full dr reg], λ [1], seeds [1]
	// main job step sim: invmmd [sim]
	// main job step sim_mf075: invmmd [sim -paper-split]
	// results of the paper split trained with train-norms: under "sim_mf075_ntrain", Simulation, paper's split (MainFraction 0.75), train-norms
	// nosuch known: false
}
