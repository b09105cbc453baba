// Package archivegen generates a synthetic web archive that behaves like a
// real one, for the demo, the tests of the extraction, the evaluation of the
// focusing options and the benchmarks (cmd/genarchive).
//
// About 40 English and German hosts (news, blogs, sports, science, a wiki in
// two editions), each with its URL layout, page template and charset, publish
// articles on background topics and on several fictional events, with
// listing pages, boilerplate, links between related articles in the forms
// real pages use, and 1–4 captures per article with revisits, redirects and
// 404s. With Config.Templates the hosts take the site templates of real news
// sites (related stories in asides, teaser grids, footer link farms, print
// and AMP copies).
//
// Generate writes WARC files (one gzip member per record, with payload and
// block digests), labels.tsv (every archived article with its event, grade
// and true publication time; LabelsHeader), one collection specification per
// event (specs/EVENT.yaml) and summary.json. A page is a pure function of
// (seed, page id): memory stays constant, and the same seed and size give
// byte-identical files whatever the number of workers. The WARC writer is
// written here so that nothing depends on the clock or random record ids;
// gowarc's reader checks the output in the tests.
//
// docs/demo-archive.md describes the synthetic web in detail.
package archivegen
