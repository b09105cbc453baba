package roundstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// A refresh (recrawl extract --refresh) continues a finished or
// interrupted extraction against the index as it is now. Each one is a
// directory refresh-NNNNN of the work directory, complete once it holds
// DONE:
//
//	refresh.json         the Refresh record
//	frontier/again.gob   the entries of the missing URLs resolved again
//	seen.txt             the seen set at its state without those URLs
//	labels.json          with --labels_file: the labels in force from its state
//	                     on (extract.LabelState)
//	frontier/ranked.gob  with --labels_file: the whole frontier at its state,
//	                     ranked again with the labels; it replaces the
//	                     state's frontier and again.gob (RefreshedFrontier)
//
// A refresh applies at a state (Refresh.State): the round that starts from
// that state reads the state's frontier plus the refresh's, and the seen
// set from the refresh's seen.txt on is the refresh's file and the seen
// files of the states after it (SeenFilesWith). A refresh that resolves no
// URL again writes neither file. The index state and the job of the
// original extraction are in OriginFile.
const (
	RefreshFile = "refresh.json"
	// OriginFile records the index state and the job a work directory's
	// extraction started with (an Origin), so that a refresh of an
	// unchanged index finds nothing to do.
	OriginFile = "origin.json"
	// againFile is the part file of a refresh's frontier.
	againFile = "again.gob"
	// rankedFile is the part file of a refresh's frontier ranked again
	// with labels.
	rankedFile = "ranked.gob"
	// LabelsFile holds a refresh's labels (extract.LabelState).
	LabelsFile = "labels.json"
)

// Refresh is a refresh's record (refresh.json), and run.json's entry for
// it (Added is filled in for run.json, not stored).
type Refresh = collection.Refresh

// Origin is OriginFile: the index state and the job an extraction started with.
type Origin struct {
	IndexState string `json:"index_state"`
	JobDigest  string `json:"job_digest"`
}

// JobDigest is the hex sha256 of a job's JSON.
func JobDigest(jobJSON string) string {
	sum := sha256.Sum256([]byte(jobJSON))
	return hex.EncodeToString(sum[:])
}

// RefreshDir is the directory of refresh number n.
func RefreshDir(work string, n int) string {
	return storage.Join(work, fmt.Sprintf("refresh-%05d", n))
}

// WriteOrigin writes OriginFile.
func WriteOrigin(ctx context.Context, work string, o Origin) error {
	b, _ := json.Marshal(o)
	return storage.WriteFile(ctx, storage.Join(work, OriginFile), b)
}

// ReadOrigin reads OriginFile; a work directory without one (made by a
// recrawl that did not write it) gives the zero Origin.
func ReadOrigin(ctx context.Context, work string) (Origin, error) {
	p := storage.Join(work, OriginFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return Origin{}, nil
	}
	if err != nil {
		return Origin{}, err
	}
	var o Origin
	if err := json.Unmarshal(data, &o); err != nil {
		return Origin{}, fmt.Errorf("%s: %w", p, err)
	}
	return o, nil
}

// Refreshes returns the complete refreshes of work, in order.
func Refreshes(ctx context.Context, work string) ([]Refresh, error) {
	dones, err := storage.Glob(ctx, storage.Join(work, "refresh-*", DoneFile))
	if err != nil {
		return nil, err
	}
	var out []Refresh
	for _, d := range dones {
		dir := strings.TrimSuffix(strings.TrimSuffix(d, DoneFile), "/")
		if _, err := strconv.Atoi(strings.TrimPrefix(storage.Base(dir), "refresh-")); err != nil {
			continue
		}
		p := storage.Join(dir, RefreshFile)
		data, err := storage.ReadFile(ctx, p)
		if err != nil {
			return nil, err
		}
		var r Refresh
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	for i, r := range out {
		if r.Number != i+1 {
			return nil, fmt.Errorf("%s: refresh %d where %d belongs (a refresh directory missing)", work, r.Number, i+1)
		}
	}
	return out, nil
}

// WriteRefresh writes refresh r (r.Number is the next number) with the
// entries resolved again and, when there are any, the seen set without
// them; DONE last, so a refresh killed while written is written again.
func WriteRefresh(ctx context.Context, work string, r Refresh, again []extract.Entry, seen []string) error {
	return WriteLabelledRefresh(ctx, work, r, again, seen, nil, nil)
}

// WriteLabelledRefresh is WriteRefresh for a refresh with labels: it also
// writes the labels in force (LabelsFile) and, when ranked is not nil,
// the frontier ranked again with them (r.Reprioritised is set to its
// size).
func WriteLabelledRefresh(ctx context.Context, work string, r Refresh, again []extract.Entry, seen []string, labels *extract.LabelState, ranked []extract.Entry) error {
	dir := RefreshDir(work, r.Number)
	if err := storage.RemoveAll(ctx, dir); err != nil {
		return err
	}
	if labels != nil {
		b, err := json.Marshal(labels)
		if err != nil {
			return fmt.Errorf("refresh %d: encode labels: %w", r.Number, err)
		}
		if err := storage.WriteFile(ctx, storage.Join(dir, LabelsFile), b); err != nil {
			return err
		}
	}
	r.Reprioritised = len(ranked)
	if ranked != nil {
		if err := WritePart(ctx, storage.Join(dir, FrontierDir, rankedFile), ranked); err != nil {
			return err
		}
	}
	r.ResolvedAgain = len(again)
	if len(again) > 0 {
		if err := WritePart(ctx, storage.Join(dir, FrontierDir, againFile), again); err != nil {
			return err
		}
		if err := storage.WriteSortedLines(ctx, storage.Join(dir, SeenFile), seen); err != nil {
			return err
		}
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := storage.WriteFile(ctx, storage.Join(dir, RefreshFile), b); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, DoneFile), nil)
}

// SeenFilesWith are the seen files after n rounds given the refreshes of
// the work directory: those of the last refresh at or before state n that
// resolved URLs again, and of the states after it, or SeenFiles(work, n).
func SeenFilesWith(work string, n int, refreshes []Refresh) []string {
	base := -1
	for _, r := range refreshes {
		if r.State <= n && r.ResolvedAgain > 0 {
			base = r.Number
		}
	}
	if base < 0 {
		return SeenFiles(work, n)
	}
	r := refreshes[base-1]
	files := []string{storage.Join(RefreshDir(work, r.Number), SeenFile)}
	for i := r.State + 1; i <= n; i++ {
		files = append(files, storage.Join(StateDir(work, i), SeenFile))
	}
	return files
}

// RefreshFrontier are the frontier files the refreshes at state n add to
// that state's own, and the number of entries in them.
func RefreshFrontier(work string, n int, refreshes []Refresh) (files []string, size int) {
	for _, r := range refreshes {
		if r.State == n && r.ResolvedAgain > 0 {
			files = append(files, storage.Join(RefreshDir(work, r.Number), FrontierDir, againFile))
			size += r.ResolvedAgain
		}
	}
	return files, size
}

// Unfinish removes FINISHED: a refresh removes it before anything else, so
// one killed at any later point is taken up again by the next run.
func Unfinish(ctx context.Context, work string) error {
	return storage.Remove(ctx, storage.Join(work, FinishedFile))
}

// RefreshedFrontier are the frontier files the round starting from state n
// reads, and the number of entries in them, given the state's own
// (stateFiles, stateSize): the last refresh at n with labels replaces
// them, and the refreshes at n before it, with its ranked frontier; the
// other refreshes at n add theirs (RefreshFrontier).
func RefreshedFrontier(work string, n int, refreshes []Refresh, stateFiles []string, stateSize int) ([]string, int) {
	files, size := append([]string(nil), stateFiles...), stateSize
	for _, r := range refreshes {
		if r.State != n {
			continue
		}
		if r.Labels != nil {
			files, size = nil, r.Reprioritised
			if r.Reprioritised > 0 {
				files = []string{storage.Join(RefreshDir(work, r.Number), FrontierDir, rankedFile)}
			}
			continue
		}
		if r.ResolvedAgain > 0 {
			files = append(files, storage.Join(RefreshDir(work, r.Number), FrontierDir, againFile))
			size += r.ResolvedAgain
		}
	}
	return files, size
}

// ReadLabels returns the labels in force after the refreshes: those of
// the last refresh with labels (each holds the labels of the ones before
// it with its own), nil when none has labels.
func ReadLabels(ctx context.Context, work string, refreshes []Refresh) (*extract.LabelState, error) {
	for i := len(refreshes) - 1; i >= 0; i-- {
		r := refreshes[i]
		if r.Labels == nil {
			continue
		}
		p := storage.Join(RefreshDir(work, r.Number), LabelsFile)
		data, err := storage.ReadFile(ctx, p)
		if err != nil {
			return nil, err
		}
		var l extract.LabelState
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return &l, nil
	}
	return nil, nil
}
