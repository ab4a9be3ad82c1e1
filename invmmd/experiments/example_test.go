package experiments_test

import (
	"fmt"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// ExampleByName looks up the entry of the registry that stores its results under a name,
// here the simulation's companion with the paper's batch split, and reads what the
// command line, merge and the notebooks read from it: its command, its default sweep at
// paper size and quick, its steps in the main job (invmmd all) and the experiment the
// name describes (without reading data).
func ExampleByName() {
	e, ok := experiments.ByName("sim_mf075")
	if !ok {
		fmt.Println("unknown")
		return
	}
	fmt.Printf("command: invmmd %s (%s)\n", e.Name, e.Summary)
	paper, quick := e.DefaultSweep(false), e.DefaultSweep(true)
	fmt.Printf("paper-size sweep: methods %v, λ %v, seeds %v\n", paper.Methods, paper.Lambdas, paper.Seeds)
	fmt.Printf("quick sweep: methods %v, λ %v, seeds %v\n", quick.Methods, quick.Lambdas, quick.Seeds)
	for _, r := range e.Main {
		fmt.Printf("main job step %s: invmmd %s %v\n", r.Name, e.Name, r.Flags)
	}
	exp, _ := e.Experiment("sim_mf075")
	fmt.Printf("results under %q: %s\n", exp.Name, exp.Title)
	_, ok = experiments.ByName("nosuch")
	fmt.Println("nosuch known:", ok)
	// Output:
	// command: invmmd sim (Experiment 1: the simulation, every method × seeds × λ)
	// paper-size sweep: methods [none obs full dr dr+ reg ip ip+ dr-po dr-po+], λ [1 5], seeds [1 2 3 4 5]
	// quick sweep: methods [none obs full dr reg], λ [1], seeds [1]
	// main job step sim: invmmd sim []
	// main job step sim_mf075: invmmd sim [-paper-split]
	// results under "sim_mf075": Simulation, paper's split (MainFraction 0.75)
	// nosuch known: false
}
