package build

import (
	"fmt"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// Draft is a case before the model fills in its expectations and the
// generator its ID. Its identity is its component and description: a
// generator run keeps the ID of the committed case with the same both.
type Draft struct {
	Component   oracle.Component
	Area        string // the <area> of the ID, [a-z0-9]+
	Level       conformance.Level
	Clauses     []string
	Description string
	Config      *oracle.Config // nil for lim
	Ops         []oracle.Op
	Twin        bool // run on two instances opened side by side (VEC-15)
}

// All returns every draft of every builder, in a fixed order.
func All() []Draft {
	var ds []Draft
	for _, b := range builders() {
		ds = append(ds, b()...)
	}
	return ds
}

// builders lists the builders in the order their drafts are generated.
func builders() []func() []Draft {
	return []func() []Draft{
		formatCases,
		limConfig, limBucketNew, limContract, limStepBack, limSteps, limClamp, limPass, limReject,
		limOverflow, limFindings, limAcquire, limRelease, limKey, limKeyFindings, limResponse,
		gateConfig, gateNew, gateKeys, gateShed, gateAdmit, gateBirth, gateRelease, gateRetryAfter,
		gateTime, gateFindings, gateExample, gateForget, gateFill, gateEvict, gateFlood, gateSeeds, gateBudget,
		throttleConfig, throttleCheck, throttleWindow, throttleBan, throttleRecord, throttleAny,
		throttleKeys, throttlePurge, throttleFindings,
		faultRules, faultCheck, faultRecord, faultOthers, faultAny,
		isolation,
		limKeyExtremes, gateExtremes, throttleExtremes, wideCases,
		reviewCases,
		plantedCases,
	}
}

// Fill runs d through the model and returns its case, with every op's
// expected result and the refused config, if any, as the model gives them;
// ID and spec version are left for the generator.
//
// spec VEC-13: "Expectations are computed by running the model, never written by hand"
func Fill(d Draft) (conformance.Case, error) {
	c := conformance.Case{
		Format: conformance.Format, Clauses: d.Clauses, Description: d.Description,
		Level: d.Level, Component: d.Component, Config: d.Config, Ops: []conformance.Step{}, Twin: d.Twin,
	}
	t := c.Trace()
	t.Ops = d.Ops
	out, err := oracle.Run(oracle.Model{}, t)
	if err != nil {
		return conformance.Case{}, fmt.Errorf("build: %s %q: %w", d.Component, d.Description, err)
	}
	c.ExpectOpen = out.Open
	if out.Open != "" && len(d.Ops) > 0 {
		return conformance.Case{}, fmt.Errorf("build: %s %q: the config is refused, so its %d ops never run: drop them", d.Component, d.Description, len(d.Ops))
	}
	for i, r := range out.Results {
		c.Ops = append(c.Ops, conformance.Step{Op: d.Ops[i], Expect: r})
	}
	if c.ExpectOpen == "" && len(c.Ops) != len(d.Ops) {
		return conformance.Case{}, fmt.Errorf("build: %s %q: the model returned %d results for %d ops", d.Component, d.Description, len(c.Ops), len(d.Ops))
	}
	return c, nil
}
