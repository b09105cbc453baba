// Package runners turns Beam's --runner flag and the options that go with it
// into one validated Config, and runs recrawl's pipelines with it: in process
// on prism, on Flink and Spark clusters through their Beam job services, and
// on Google Cloud Dataflow.
//
// A pipeline's main reads its configuration once, checks that every storage
// path its flags name can be reached by the workers that will open it, and
// runs:
//
//	rc, err := runners.FromFlags()
//	if err != nil { ... }
//	defer rc.Close()
//	if err := rc.Validate(map[string]string{"--input": *input, "--output": *output}); err != nil { ... }
//	res, err := rc.Run(ctx, p)
//
// # Beam's flags stay Beam's
//
// --runner, --endpoint, --environment_type, --environment_config,
// --worker_binary, --project, --region, --staging_location, --temp_location
// and --dry_run are defined by the Beam SDK (packages beam/runners,
// beam/options/jobopts, beam/options/gcpopts and the Dataflow runner).
// FromFlags reads those variables, it defines no flag of its own, so
// --help shows each flag once and every Beam option keeps working. Run writes
// a Config's non-empty fields back into the same variables, so a Config built
// in code (a test, a driver) is what the Beam runners see.
//
// # Runners
//
//   - prism (the default): Beam's portable runner, started in this process
//     with workers in LOOPBACK mode (the SDK harness runs here too). With
//     --endpoint it submits to a standalone prism job server instead
//     (scripts/prism-jobserver.sh).
//   - direct: the deprecated in-memory runner. It never serialises the
//     pipeline, so it hides registration bugs; prefer prism.
//   - vet: checks that every function and DoFn is registered, runs nothing.
//   - universal, flink, spark: submit to a Beam job service at --endpoint (a
//     Flink or Spark job server, or prism). flink and spark are Beam's thin
//     wrappers of universal, so all three take the same options. Workers run
//     in --environment_type DOCKER (Beam's default), PROCESS, EXTERNAL (a
//     worker pool at --environment_config) or LOOPBACK (in this process;
//     useful against a local job server, never on a real cluster).
//   - dataflow: Google Cloud Dataflow; needs --project, --region and a gs://
//     --staging_location (--temp_location defaults to STAGING/tmp).
//     --dry_run translates and prints the job without submitting it, offline.
//
// # Where files may live
//
// Every worker opens the files named by --input, --output and the work
// directories itself. Local paths are therefore allowed only where all user
// code runs on this machine: prism in LOOPBACK mode, direct, vet, and the
// portable runners with --environment_type=LOOPBACK. Everywhere else
// Validate rejects them and names the flag; gs:// paths work everywhere.
//
// # Worker binaries
//
// Outside LOOPBACK the workers run a linux/amd64 build of the same program.
// Beam would cross-compile one by itself, but once per pipeline run; an
// extraction runs a pipeline per round. EnsureWorkerBinary (called by Run
// when needed) builds it once per Config with BuildWorkerBinary and points
// --worker_binary at it for all later rounds; Close removes it. Production
// jobs pass a pre-built --worker_binary (see scripts/run-flink.sh).
//
// # Temporary files
//
// Beam's portable runner creates an empty beamloopbackworker-* file in the
// temporary directory for every LOOPBACK job and never removes it; a
// multi-round run would leave hundreds. Run gives LOOPBACK jobs a private
// temporary directory (TMPDIR points there while jobs run) and removes those
// files, and the directory if it is then empty, when the last concurrent job
// ends. Removing by name from the shared temporary directory instead could
// delete the file of another process's job between its creation and its use.
// The directory is named recrawl-beam-PID-*; a driver killed with SIGKILL
// leaves its own, and the next LOOPBACK run removes those whose process is
// gone.
//
// # Job services
//
// universal, flink and spark jobs are submitted by this package (portable.go)
// rather than by Beam's universal runner: the job service is dialled first,
// so a job server that is not running fails at once with "connection
// refused" naming --endpoint (CheckEndpoint, which a pipeline calls before
// it creates any state); --job_name also goes into the pipeline options as
// job_name, which Flink's job server names the Flink job after; an ended
// context (Ctrl+C) cancels the job on the job service; and a job server that
// stops answering, a failed job or unreadable metrics end in one line naming
// the job server and what to restart. docs/clusters.md has the details.
package runners
