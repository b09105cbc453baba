package extract

// ResultSource replays a run's results in collection order; it may be
// called more than once. The files a run's results become are written by
// package collection.
type ResultSource func(yield func(Result) error) error
