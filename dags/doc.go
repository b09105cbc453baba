// Package dags holds recrawl's Apache Airflow DAG, recrawl_nightly.py: each
// night it indexes the new WARC files of an archive folder (recrawl index
// --add), refreshes every collection of a folder of specifications (recrawl
// extract --refresh) and publishes each WACZ and report (docs/nightly.md).
//
// The package has no Go code of its own: its test runs the DAG with
// `airflow dags test` on generated nights of WARC files.
package dags
