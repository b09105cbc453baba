package scoring

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Calibration is the relevance gate of Klein et al. (seed 002, §3.4.3,
// §3.5.3, §3.6) computed from the reference documents: in each split a
// random 60 % of them build the reference vector and the other 40 % are
// scored against it. THcont is the mean held-out TopicR over the splits,
// THtemp the mean TempR of the 60 % that have a document time, and the
// threshold THaggr = alpha·THcont + (1 − alpha)·THtemp, with the scorer's
// alpha. When no reference document has a time, the temporal part is left
// out (THaggr = alpha·THcont) and Note says so.
type Calibration struct {
	Threshold float64            `json:"threshold"`
	TopicR    float64            `json:"th_cont"`
	TempR     float64            `json:"th_temp"`
	Alpha     float64            `json:"alpha"`
	Splits    []CalibrationSplit `json:"splits"`
	Note      string             `json:"note,omitempty"`
}

// CalibrationSplit is one random split: its seed (math/rand/v2 PCG with
// (Seed, CalibrationStream)), the indexes of the reference documents in
// each part, and its values.
type CalibrationSplit struct {
	Seed          uint64  `json:"seed"`
	Train         []int   `json:"train"`
	HeldOut       []int   `json:"held_out"`
	HeldOutTopicR float64 `json:"held_out_topic_r"`
	TrainTempR    float64 `json:"train_temp_r"`
	TrainTimes    int     `json:"train_times"` // training documents with a time
}

// CalibrationStream is the second PCG seed word of every split.
const CalibrationStream = 0x6b6c65696e // "klein"

// Calibrate computes the gate from cfg (its References are the reference
// documents; times[i] is the document time of References[i], zero if it has
// none). Split i uses seed firstSeed+i, so a calibration is reproducible.
func Calibrate(cfg Config, times []time.Time, splits int, firstSeed uint64) (Calibration, error) {
	n := len(cfg.References)
	if n < 2 {
		return Calibration{}, fmt.Errorf("calibrate follow_threshold: needs at least 2 reference documents, have %d", n)
	}
	if len(times) != n {
		return Calibration{}, fmt.Errorf("calibrate follow_threshold: %d times for %d reference documents", len(times), n)
	}
	if splits < 1 {
		return Calibration{}, fmt.Errorf("calibrate follow_threshold: %d splits", splits)
	}
	train := int(math.Ceil(0.6 * float64(n)))
	if train >= n {
		train = n - 1
	}
	cal := Calibration{Alpha: cfg.Alpha}
	var topicSum, tempSum float64
	tempSplits := 0
	for i := 0; i < splits; i++ {
		seed := firstSeed + uint64(i)
		perm := rand.New(rand.NewPCG(seed, CalibrationStream)).Perm(n)
		sp := CalibrationSplit{Seed: seed, Train: sortedInts(perm[:train]), HeldOut: sortedInts(perm[train:])}
		part := cfg
		part.ReferenceVectors = nil // the split's own vector, from its texts
		part.References = nil
		for _, j := range sp.Train {
			part.References = append(part.References, cfg.References[j])
		}
		scorer, err := NewScorer(part)
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate follow_threshold: split %d: %w", i, err)
		}
		for _, j := range sp.HeldOut {
			r := cfg.References[j]
			sp.HeldOutTopicR += scorer.TextTopicR(r.Text, r.Language)
		}
		sp.HeldOutTopicR /= float64(len(sp.HeldOut))
		for _, j := range sp.Train {
			if !times[j].IsZero() {
				sp.TrainTempR += cfg.Time.TempR(times[j])
				sp.TrainTimes++
			}
		}
		if sp.TrainTimes > 0 {
			sp.TrainTempR /= float64(sp.TrainTimes)
			tempSum += sp.TrainTempR
			tempSplits++
		}
		topicSum += sp.HeldOutTopicR
		cal.Splits = append(cal.Splits, sp)
	}
	cal.TopicR = topicSum / float64(splits)
	if tempSplits > 0 {
		cal.TempR = tempSum / float64(tempSplits)
		cal.Threshold = TTR(cfg.Alpha, cal.TopicR, cal.TempR)
	} else {
		cal.Threshold = cfg.Alpha * cal.TopicR
		cal.Note = "no reference document has a document time: the threshold has no temporal part"
	}
	return cal, nil
}

func sortedInts(a []int) []int {
	out := slices.Clone(a)
	slices.Sort(out)
	return out
}
