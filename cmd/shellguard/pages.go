package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A running server's approval page is published for `shellguard doctor`
// as PagesDir/PID.json (config.Config.PagesDir: beside the user file,
// mode 0700, masked in the sandbox), since a client such as Claude
// Desktop keeps the server's stderr in a log the user seldom opens. The
// file holds the page's secret address: it is written 0600, and removed
// when the server stops.

// pageRecord is one published page.
type pageRecord struct {
	URL       string    `json:"url"`
	Workspace string    `json:"workspace,omitempty"`
	Pid       int       `json:"pid"`
	Started   time.Time `json:"started"`
}

// publishPage writes the record of this process's page into dir and
// returns the function that removes it.
func publishPage(dir, url, workspace string) (remove func(), err error) {
	if dir == "" {
		return func() {}, errors.New("no user configuration directory to publish the page's address in")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return func() {}, err
	}
	b, err := json.Marshal(pageRecord{URL: url, Workspace: workspace, Pid: os.Getpid(), Started: time.Now().UTC()})
	if err != nil {
		return func() {}, err
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".json")
	tmp, err := os.CreateTemp(dir, ".page-*")
	if err != nil {
		return func() {}, err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return func() {}, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return func() {}, err
	}
	return func() { os.Remove(path) }, nil
}

// livePages returns the pages published in dir that answer, oldest
// first, and removes the records of pages that no longer do (a server
// killed before it could remove its own).
func livePages(dir string) []pageRecord {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	client := &http.Client{Timeout: 2 * time.Second}
	var out []pageRecord
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := readSmall(path, 64<<10)
		var r pageRecord
		if err != nil || json.Unmarshal(b, &r) != nil || !strings.HasPrefix(r.URL, "http://127.0.0.1:") {
			continue
		}
		resp, err := client.Get(r.URL)
		if err != nil {
			os.Remove(path)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			os.Remove(path)
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// readSmall reads a file of at most max bytes, refusing anything else.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return b, nil
}

// printPages lists the running servers' approval pages.
func printPages(w io.Writer, dir string) {
	pages := livePages(dir)
	if len(pages) == 0 {
		fmt.Fprintln(w, "approval pages: none running (shellguard mcp --approval-page starts one)")
		return
	}
	fmt.Fprintln(w, "approval pages (answer the asks of clients that cannot ask):")
	for _, p := range pages {
		where := ""
		if p.Workspace != "" {
			where = " for " + p.Workspace
		}
		fmt.Fprintf(w, "  %s  (pid %d%s, since %s)\n", p.URL, p.Pid, where, p.Started.Local().Format("15:04:05"))
	}
}
