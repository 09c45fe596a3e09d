package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/limcheck/limcheck/oracle"
)

// stderrPerCase is fakeport stderr-per-case: the model, writing one line on
// stderr for every op, "stderr of" and the op, so that each case's lines
// are its own; and answering every lim op with a verdict it does not have,
// so that every lim case with an op fails.
type stderrPerCase struct{ oracle.Model }

func (s stderrPerCase) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := s.Model.Open(c, cfg)
	if inst != nil {
		inst = stderrInst{inst, c == oracle.Lim}
	}
	return inst, class, err
}

type stderrInst struct {
	oracle.Instance
	lie bool
}

func (s stderrInst) Do(op oracle.Op) (oracle.Result, error) {
	line, _ := json.Marshal(op)
	fmt.Fprintf(os.Stderr, "stderr of %s\n", line)
	res, err := s.Instance.Do(op)
	if s.lie {
		res.Verdict = "lie"
	}
	return res, err
}
