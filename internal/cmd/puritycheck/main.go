package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/limcheck/limcheck/internal/purity"
)

func main() { singlechecker.Main(purity.Analyzer) }
