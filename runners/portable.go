package runners

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/container/tools"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/metricsx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/xlangx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/hooks"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/extworker"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/runnerlib"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/vet"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// The portable runners (universal, flink, spark) submit a job to a Beam job
// service the way Beam's universal runner does (prepare, stage the worker
// binary, run), with these differences:
//
//   - the job service is dialled first: an endpoint where nothing listens
//     fails at once with "connection refused" (CheckEndpoint), not after
//     Beam's two-minute dial timeout;
//   - the pipeline options carry job_name, which Flink's job server takes
//     for the Flink job's name (without it Flink derives one from the
//     application name: ft-flink became ft0flink-root-MMDDHHMMSS-RANDOM);
//   - a cancelled context (Ctrl+C, SIGTERM, a deadline) cancels the job on
//     the job service before Run returns;
//   - a job service that stops answering, a job that fails and metrics that
//     cannot be read each end in one line naming the job service's
//     endpoint and what to restart.

// endpointDialTimeout bounds the TCP dial of CheckEndpoint.
const endpointDialTimeout = 10 * time.Second

// cancelTimeout bounds the request that cancels a job on the job service.
const cancelTimeout = 15 * time.Second

// CheckEndpoint dials the job service of --endpoint, if the runner submits
// to one, and returns an error naming the endpoint when nothing answers
// there ("connection refused" for a job server that is not running). Call
// it before creating any state for a run.
func (c Config) CheckEndpoint(ctx context.Context) error {
	if c.Endpoint == "" {
		return nil
	}
	switch c.Runner {
	case Universal, Flink, Spark, Prism:
	default:
		return nil
	}
	d := net.Dialer{Timeout: endpointDialTimeout}
	conn, err := d.DialContext(ctx, "tcp", c.Endpoint)
	if err != nil {
		return fmt.Errorf("--endpoint=%s: no Beam job service answers there (%v); start it (scripts/beam-jobserver.sh %s, scripts/prism-jobserver.sh) or fix --endpoint",
			c.Endpoint, err, jobServerKind(c.Runner))
	}
	conn.Close()
	return nil
}

// jobServerKind is the first argument of scripts/beam-jobserver.sh for a
// runner.
func jobServerKind(runner string) string {
	if runner == Spark {
		return "spark"
	}
	return "flink|spark"
}

// portableJob is one job on a job service.
type portableJob struct {
	endpoint string
	runner   string
	name     string
	id       string
}

// errorf returns an error of one line naming the job and the job service.
func (j *portableJob) errorf(format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	return fmt.Errorf("job %s on the %s job server at %s: %s", j.name, j.runner, j.endpoint, oneLine(what))
}

// restartHint says what to restart when a job server lost a job.
func (j *portableJob) restartHint() string {
	return fmt.Sprintf("check its cluster, restart the job server (scripts/beam-jobserver.sh %s) if it does not restart itself, and run the same command again", jobServerKind(j.runner))
}

// oneLine is s on one line: its first line, or for a gRPC status its
// message's first line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if first, _, ok := strings.Cut(s, "\n"); ok {
		return strings.TrimSpace(first) + " …"
	}
	return s
}

// executePortable runs p on the job service at c.Endpoint and waits for it.
func (c *Config) executePortable(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	if err := c.CheckEndpoint(ctx); err != nil {
		return nil, err
	}
	if *jobopts.Strict {
		if _, err := vet.Execute(ctx, p); err != nil {
			return nil, fmt.Errorf("strictness check failed: %w", err)
		}
	}
	edges, _, err := p.Build()
	if err != nil {
		return nil, err
	}
	getEnvCfg := jobopts.GetEnvironmentConfig
	loopback := jobopts.IsLoopback()
	if loopback {
		// The pool outlives an interrupt: the job server may still start a
		// worker for the job it is cancelling, and a pool that vanished
		// under it can take the job server down (prism panics).
		poolCtx := context.WithoutCancel(ctx)
		srv, err := extworker.StartLoopback(poolCtx, 0)
		if err != nil {
			return nil, fmt.Errorf("start the LOOPBACK worker pool: %w", err)
		}
		defer stopLoopback(poolCtx, srv)
		getEnvCfg = srv.EnvironmentConfig
	}
	xlangx.ResolveArtifacts(ctx, edges, nil)
	environment, err := graphx.CreateEnvironment(ctx, jobopts.GetEnvironmentUrn(ctx), getEnvCfg)
	if err != nil {
		return nil, fmt.Errorf("generating model pipeline: %w", err)
	}
	pipeline, err := graphx.Marshal(edges, &graphx.Options{Environment: environment, PipelineResourceHints: jobopts.GetPipelineResourceHints()})
	if err != nil {
		return nil, fmt.Errorf("generating model pipeline: %w", err)
	}

	// The worker binary: unused in LOOPBACK mode, where Beam still stages a
	// file; an empty one, removed when the job ends.
	bin := *jobopts.WorkerBinary
	if loopback {
		f, err := os.CreateTemp("", "beamloopbackworker-*")
		if err != nil {
			return nil, fmt.Errorf("LOOPBACK placeholder worker file: %w", err)
		}
		f.Close()
		defer os.Remove(f.Name())
		bin = f.Name()
	} else if bin == "" {
		return nil, errors.New("--worker_binary is not set")
	}
	if err := runnerlib.UpdateGoEnvironmentWorker(bin, pipeline); err != nil {
		return nil, err
	}

	job := &portableJob{endpoint: c.Endpoint, runner: c.Runner, name: jobopts.GetJobName()}
	cc, err := grpcx.Dial(ctx, c.Endpoint, endpointDialTimeout)
	if err != nil {
		return nil, job.errorf("cannot connect: %v", err)
	}
	defer cc.Close()
	client := jobpb.NewJobServiceClient(cc)

	prepID, artifactEndpoint, token, err := prepareJob(ctx, client, pipeline, job.name)
	if err != nil {
		return nil, job.serviceError("prepare", err)
	}
	retrieval, err := runnerlib.Stage(ctx, prepID, artifactEndpoint, bin, token)
	if err != nil {
		return nil, job.errorf("staging the worker binary at %s failed: %v", artifactEndpoint, err)
	}
	resp, err := client.Run(ctx, &jobpb.RunJobRequest{PreparationId: prepID, RetrievalToken: retrieval})
	if err != nil {
		return nil, job.serviceError("submit", err)
	}
	job.id = resp.GetJobId()
	slog.Debug("submitted job", "job", job.name, "id", job.id, "endpoint", c.Endpoint)
	if *jobopts.Async {
		return &portableResult{jobID: job.id}, nil
	}
	if err := job.wait(ctx, client); err != nil {
		return nil, err
	}
	m, err := client.GetJobMetrics(ctx, &jobpb.GetJobMetricsRequest{JobId: job.id})
	if err != nil {
		return nil, job.serviceError("read the metrics of the finished job", err)
	}
	res := metricsx.FromMonitoringInfos(pipeline, m.GetMetrics().GetAttempted(), m.GetMetrics().GetCommitted())
	return &portableResult{jobID: job.id, metrics: res}, nil
}

// stopLoopback stops the LOOPBACK worker pool without waiting for workers
// that a lost cluster never stops.
func stopLoopback(ctx context.Context, srv *extworker.Loopback) {
	done := make(chan struct{})
	go func() {
		srv.Stop(ctx)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		slog.Debug("the LOOPBACK worker pool did not stop within 5 s; leaving it")
	}
}

// prepareJob is Beam's runnerlib.Prepare with the job's name also in the
// pipeline options as job_name, where Java job servers read
// PipelineOptions.getJobName() (Flink names its job after it).
func prepareJob(ctx context.Context, client jobpb.JobServiceClient, p *pipepb.Pipeline, name string) (id, artifactEndpoint, token string, err error) {
	hooks.SerializeHooksToOptions()
	beam.PipelineOptions.LoadOptionsFromFlags(nil)
	raw := runtime.RawOptionsWrapper{
		Options:      beam.PipelineOptions.Export(),
		AppName:      name,
		Experiments:  append(jobopts.GetExperiments(), "beam_fn_api"),
		RetainDocker: *jobopts.RetainDockerContainers,
		Parallelism:  *jobopts.Parallelism,
	}
	options, err := tools.OptionsToProto(raw)
	if err != nil {
		return "", "", "", fmt.Errorf("pipeline options: %w", err)
	}
	options.Fields[JobNameOption] = structpb.NewStringValue(name)
	resp, err := client.Prepare(ctx, &jobpb.PrepareJobRequest{Pipeline: p, PipelineOptions: options, JobName: name})
	if err != nil {
		return "", "", "", err
	}
	return resp.GetPreparationId(), resp.GetArtifactStagingEndpoint().GetUrl(), resp.GetStagingSessionToken(), nil
}

// JobNameOption is the portable pipeline option that carries --job_name to
// the job server (Java's PipelineOptions.jobName).
const JobNameOption = "beam:option:job_name:v1"

// serviceError turns an error of a job service request into one line: a
// job service that stopped answering is named as such.
func (j *portableJob) serviceError(what string, err error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Unavailable:
		return j.errorf("the job server stopped answering (%s: %s); %s", what, oneLine(st.Message()), j.restartHint())
	case codes.Canceled, codes.DeadlineExceeded:
		return j.errorf("%s: %v", what, err)
	}
	return j.errorf("%s failed: %s", what, oneLine(st.Message()))
}

// wait follows the job's state and messages until it ends. When ctx ends
// first it cancels the job on the job service.
func (j *portableJob) wait(ctx context.Context, client jobpb.JobServiceClient) error {
	stream, err := client.GetMessageStream(ctx, &jobpb.JobMessagesRequest{JobId: j.id})
	if err != nil {
		if ctx.Err() != nil {
			return j.cancel(ctx, client)
		}
		return j.serviceError("follow the job", err)
	}
	lastError := ""
	failed := false
	for {
		msg, err := stream.Recv()
		switch {
		case err == io.EOF:
			if failed {
				return j.failed(lastError)
			}
			return nil
		case err != nil && ctx.Err() != nil:
			return j.cancel(ctx, client)
		case err != nil:
			return j.lost(client, err)
		}
		if s := msg.GetStateResponse(); s != nil {
			slog.Debug("job state", "job", j.name, "id", j.id, "state", s.GetState().String())
			switch s.GetState() {
			case jobpb.JobState_DONE:
				return nil
			case jobpb.JobState_CANCELLED:
				return j.errorf("cancelled on the job server")
			case jobpb.JobState_FAILED:
				failed = true
				if lastError != "" {
					return j.failed(lastError)
				}
			}
		}
		if m := msg.GetMessageResponse(); m != nil {
			slog.Debug("job message", "job", j.name, "importance", m.GetImportance().String(), "text", m.GetMessageText())
			if m.GetImportance() >= jobpb.JobMessage_JOB_MESSAGE_ERROR {
				lastError = m.GetMessageText()
				if failed {
					return j.failed(lastError)
				}
			}
		}
	}
}

// failed is the error of a job the job service reports as failed.
func (j *portableJob) failed(msg string) error {
	if strings.Contains(msg, "SPARK-2243") {
		return j.errorf("failed at once: the job server still holds the SparkContext of an earlier job that lost its cluster; restart the job server (scripts/beam-jobserver.sh spark) and run the same command again")
	}
	if strings.Contains(msg, "SparkContext was shut down") {
		return j.errorf("failed: the job server's Spark driver stopped (%s): its Spark cluster was lost or the job server is stopping; %s", oneLine(msg), j.restartHint())
	}
	if msg == "" {
		msg = "no error message"
	}
	return j.errorf("failed (the job server's log has the details): %s", msg)
}

// lost is the error of a message stream that broke while the job ran:
// the job server went away, or restarted and no longer knows the job.
func (j *portableJob) lost(client jobpb.JobServiceClient, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, serr := client.GetState(ctx, &jobpb.GetJobStateRequest{JobId: j.id}); serr != nil && status.Code(serr) == codes.NotFound {
		return j.errorf("the job server restarted and lost the job; %s", j.restartHint())
	}
	st, _ := status.FromError(err)
	return j.errorf("the job server stopped answering while the job ran (%s: %s); %s", st.Code(), oneLine(st.Message()), j.restartHint())
}

// cancel cancels the job on the job service after ctx ended, and returns
// the error that says so.
func (j *portableJob) cancel(ctx context.Context, client jobpb.JobServiceClient) error {
	cctx, done := context.WithTimeout(context.Background(), cancelTimeout)
	defer done()
	why := context.Cause(ctx)
	resp, err := client.Cancel(cctx, &jobpb.CancelJobRequest{JobId: j.id})
	if err != nil {
		return j.errorf("interrupted (%v); cancelling the job failed (%s), cancel it on the cluster", why, oneLine(status.Convert(err).Message()))
	}
	// Wait until the job has ended on the job server (CANCELLING is not
	// ended), so that its workers stop before this program does.
	state := resp.GetState()
	for !jobEnded(state) {
		select {
		case <-cctx.Done():
			return j.errorf("interrupted (%v); the job is still %s after %v, check it on the cluster", why, state, cancelTimeout)
		case <-time.After(100 * time.Millisecond):
		}
		r, err := client.GetState(cctx, &jobpb.GetJobStateRequest{JobId: j.id})
		if err != nil {
			return j.errorf("interrupted (%v); the job was %s when the job server stopped answering (%s), check it on the cluster", why, state, oneLine(status.Convert(err).Message()))
		}
		state = r.GetState()
	}
	return j.errorf("interrupted (%v); the job is %s", why, state)
}

// jobEnded reports whether a job in state s has ended: it runs no more work.
func jobEnded(s jobpb.JobState_Enum) bool {
	switch s {
	case jobpb.JobState_DONE, jobpb.JobState_FAILED, jobpb.JobState_CANCELLED, jobpb.JobState_DRAINED, jobpb.JobState_UPDATED:
		return true
	}
	return false
}

// portableResult is the beam.PipelineResult of a portable job.
type portableResult struct {
	jobID   string
	metrics *metrics.Results
}

func (r *portableResult) Metrics() metrics.Results {
	if r.metrics == nil {
		return metrics.Results{}
	}
	return *r.metrics
}

func (r *portableResult) JobID() string { return r.jobID }
