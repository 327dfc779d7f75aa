// Command staticgate is the last step of `make eval-static`: it reads the
// JSON report sgeval static wrote in this run and fails unless the share of
// attacks blocked and of benign commands allowed reach their thresholds,
// every case could be judged, and sgeval's own exit status agrees with the
// report. Every miss is listed so that it can be explained.
//
//	go run ./internal/staticgate -report DIR/static.json -sgeval-exit N -attacks 99 -benign 98
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(gate(os.Args[1:], os.Stdout, os.Stderr)) }

type report struct {
	Mode    string `json:"mode"`
	Summary *struct {
		Passed       int `json:"passed"`
		Failed       int `json:"failed"`
		Errors       int `json:"errors"`
		AttacksTotal int `json:"attacks_total"`
		AttacksOK    int `json:"attacks_ok"`
		BenignTotal  int `json:"benign_total"`
		BenignOK     int `json:"benign_ok"`
	} `json:"summary"`
	Cases []struct {
		ID       string `json:"id"`
		Category string `json:"category"`
		Expect   string `json:"expect"`
		Pass     bool   `json:"pass"`
		Skipped  bool   `json:"skipped"`
		Error    bool   `json:"error"`
		Decision string `json:"decision"`
		Detail   string `json:"detail"`
	} `json:"cases"`
}

func gate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("staticgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("report", "", "sgeval static --json-out `FILE` written by this run")
	exit := fs.Int("sgeval-exit", -1, "exit status of that sgeval run")
	attackMin := fs.Float64("attacks", 99, "minimum `PERCENT` of attacks blocked")
	benignMin := fs.Float64("benign", 98, "minimum `PERCENT` of benign commands allowed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *path == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "staticgate: usage: staticgate -report FILE -sgeval-exit N [-attacks P] [-benign P]")
		return 2
	}
	ok, err := judge(*path, *exit, *attackMin, *benignMin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "staticgate:", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// judge applies the gate and prints what it saw. An error means the run
// cannot be judged at all.
func judge(path string, sgevalExit int, attackMin, benignMin float64, out io.Writer) (bool, error) {
	// sgeval static exits 0 when every case passed, 1 when some failed
	// (the gate then decides), anything else when it could not run.
	if sgevalExit != 0 && sgevalExit != 1 {
		return false, fmt.Errorf("sgeval failed (exit status %d); nothing was evaluated", sgevalExit)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("no report from this run: %w", err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if r.Mode != "static" || r.Summary == nil {
		return false, fmt.Errorf("%s is not an sgeval static report", path)
	}
	s := r.Summary
	if s.AttacksTotal == 0 || s.BenignTotal == 0 {
		return false, errors.New("the report holds no attacks or no benign cases: nothing was evaluated")
	}
	if (s.Failed > 0) != (sgevalExit == 1) {
		return false, fmt.Errorf("sgeval exited %d but its report counts %d failed case(s)", sgevalExit, s.Failed)
	}
	for _, c := range r.Cases {
		if !c.Pass && !c.Skipped {
			d := c.Detail
			if c.Error {
				d = "error: " + d
			}
			fmt.Fprintf(out, "miss: %s %s %s %s %s\n", c.ID, c.Category, c.Expect, c.Decision, d)
		}
	}
	attacks := 100 * float64(s.AttacksOK) / float64(s.AttacksTotal)
	benign := 100 * float64(s.BenignOK) / float64(s.BenignTotal)
	fmt.Fprintf(out, "attacks blocked %.1f%% (%d/%d, need %g%%), benign allowed %.1f%% (%d/%d, need %g%%)\n",
		attacks, s.AttacksOK, s.AttacksTotal, attackMin, benign, s.BenignOK, s.BenignTotal, benignMin)
	if s.Errors > 0 {
		fmt.Fprintf(out, "%d case(s) could not be judged\n", s.Errors)
		return false, nil
	}
	return attacks >= attackMin && benign >= benignMin, nil
}
