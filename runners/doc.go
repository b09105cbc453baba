// Package runners turns Beam's --runner flag and the options that go with it
// into one validated Config, and runs recrawl's pipelines with it: in process
// on prism, on Flink and Spark clusters through their Beam job services, and
// on Google Cloud Dataflow.
//
//	rc, err := runners.FromFlags()
//	if err != nil { ... }
//	defer rc.Close()
//	if err := rc.Validate(map[string]string{"--input": *input, "--output": *output}); err != nil { ... }
//	res, err := rc.Run(ctx, p)
//
// Beam's flags stay Beam's: FromFlags reads the variables of the Beam SDK's
// own flags (--runner, --endpoint, --environment_type, --project, …) and
// defines none, so --help shows each flag once. The runners are prism (the
// default), direct, vet (checks registration, runs nothing), universal,
// flink and spark (a Beam job service at --endpoint), and dataflow (needs
// --project, --region and a gs:// --staging_location).
//
// Validate checks that every worker can open the paths the flags name: local
// paths only where all user code runs on this machine (LOOPBACK), gs://
// everywhere. Outside LOOPBACK the workers run a linux/amd64 build of the
// program, which EnsureWorkerBinary builds once per Config and reuses for
// every round. LOOPBACK jobs get a private temporary directory, removed when
// the last job ends, because Beam leaves a file there per job.
// The directory is named recrawl-beam-PID-*; the next LOOPBACK run removes
// those whose process is gone (a driver killed with SIGKILL).
//
// universal, flink and spark jobs are submitted by this package
// (portable.go), with Beam's staging and environment code: the job service
// is dialled first, so a job server that is not running fails at once with
// "connection refused" naming --endpoint (CheckEndpoint, which a pipeline
// calls before it creates any state); --job_name also goes into the
// pipeline options as job_name, which Flink names its job after; an ended
// context (Ctrl+C) cancels the job; and a job server that stops answering,
// a failed job or unreadable metrics end in one line naming the job server
// and what to restart (docs/clusters.md).
package runners
