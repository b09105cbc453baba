package testservers

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clusterStartTimeout bounds a cluster's or a job server's start, JVMs on a
// busy 2-core machine included (the downloads are install-cluster-deps.sh's,
// done before the tests).
const clusterStartTimeout = 4 * time.Minute

// announcedVars runs a script that prints VAR=VALUE lines once its server is
// ready and returns the values of vars, after the last of them appeared.
// The script runs until the test ends (see Script).
func announcedVars(t testing.TB, name string, vars []string, args ...string) (map[string]string, *Log) {
	t.Helper()
	pr, pw := io.Pipe()
	exited, log := Script(t, pw, name, args...)
	all := make(chan map[string]string, 1)
	go func() {
		got := map[string]string{}
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), "=")
			if !ok {
				continue
			}
			got[k] = v
			done := true
			for _, want := range vars {
				_, has := got[want]
				done = done && has
			}
			if done {
				all <- got
				break
			}
		}
		io.Copy(io.Discard, pr) // never block the script
	}()
	t.Cleanup(func() { pw.Close() })
	select {
	case m := <-all:
		return m, log
	case err := <-exited:
		CannotStart(t, "%s exited before it printed %v: %v\n%s", name, vars, err, log.String())
	case <-time.After(clusterStartTimeout):
		CannotStart(t, "%s printed no %v within %v\n%s", name, vars, clusterStartTimeout, log.String())
	}
	return nil, log
}

// Flink is a standalone Flink cluster started by scripts/flink-cluster.sh.
type Flink struct {
	Master string // the JobManager's REST address, HOST:PORT (--flink-master; GET /jobs lists the jobs)
	LogDir string // the JobManager's and TaskManager's logs
	Log    *Log   // the script's standard error
}

// FlinkCluster starts a standalone Flink cluster (a JobManager and a
// TaskManager with 2 slots) on free loopback ports; it is stopped when the
// test ends.
func FlinkCluster(t testing.TB) *Flink {
	t.Helper()
	m, log := announcedVars(t, "flink-cluster.sh", []string{"FLINK_MASTER", "FLINK_LOG_DIR"},
		"--port", "0", "--rpc-port", "0")
	return &Flink{Master: m["FLINK_MASTER"], LogDir: m["FLINK_LOG_DIR"], Log: log}
}

// Spark is a standalone Spark cluster started by scripts/spark-cluster.sh.
type Spark struct {
	MasterURL string // spark://HOST:PORT (--spark-master-url)
	Web       string // the master's web UI, http://HOST:PORT (GET /json/ lists the applications)
	LogDir    string // the master's and worker's logs
	WorkerDir string // the worker's directory: an app-* folder per application
	WorkerPID int    // the worker's JVM
	Log       *Log   // the script's standard error
}

// SparkCluster starts a standalone Spark cluster (a master and a worker
// with 2 cores) on free loopback ports; it is stopped when the test ends.
// Its worker removes an application's folder a few seconds after the
// application ended. args go to spark-cluster.sh after those (e.g.
// "--port", "7077" for a given master port).
func SparkCluster(t testing.TB, args ...string) *Spark {
	t.Helper()
	m, log := announcedVars(t, "spark-cluster.sh", []string{"SPARK_MASTER_URL", "SPARK_MASTER_WEB", "SPARK_LOG_DIR",
		"SPARK_WORKER_DIR", "SPARK_WORKER_PID"},
		append([]string{"--port", "0", "--web-port", "0", "--cleanup-interval", "5", "--app-data-ttl", "1"}, args...)...)
	pid, err := strconv.Atoi(m["SPARK_WORKER_PID"])
	if err != nil {
		t.Fatalf("spark-cluster.sh: SPARK_WORKER_PID=%q: %v", m["SPARK_WORKER_PID"], err)
	}
	return &Spark{MasterURL: m["SPARK_MASTER_URL"], Web: m["SPARK_MASTER_WEB"], LogDir: m["SPARK_LOG_DIR"],
		WorkerDir: m["SPARK_WORKER_DIR"], WorkerPID: pid, Log: log}
}

// JobServer starts Beam's job server for runner ("flink" or "spark",
// scripts/beam-jobserver.sh) pointed at master (a --flink-master or
// --spark-master-url value) on free ports, and returns its job endpoint
// and its log, in which it names every job it runs. It is stopped when the
// test ends.
func JobServer(t testing.TB, runner, master string) (endpoint string, log *Log) {
	t.Helper()
	js := StartJobServer(t, runner, master)
	return js.Endpoint, js.Log
}

// BeamJobServer is a job server started by scripts/beam-jobserver.sh.
type BeamJobServer struct {
	Endpoint  string // the job service, HOST:PORT (--endpoint)
	Artifacts string // its --artifacts-dir: a folder per job while the job runs
	Log       *Log   // its output: the JVM's log and the script's messages
}

// StartJobServer is JobServer with the job server's artifacts directory.
func StartJobServer(t testing.TB, runner, master string) *BeamJobServer {
	t.Helper()
	flag := "--flink-master="
	if runner == "spark" {
		flag = "--spark-master-url="
	}
	m, log := announcedVars(t, "beam-jobserver.sh", []string{"JOB_ENDPOINT", "JOB_ARTIFACTS_DIR"},
		runner, flag+master, "--job-port=0", "--artifact-port=0")
	return &BeamJobServer{Endpoint: m["JOB_ENDPOINT"], Artifacts: m["JOB_ARTIFACTS_DIR"], Log: log}
}

// String describes a cluster for test messages.
func (f *Flink) String() string { return fmt.Sprintf("Flink at %s (logs %s)", f.Master, f.LogDir) }

// String describes a cluster for test messages.
func (s *Spark) String() string { return fmt.Sprintf("Spark at %s (logs %s)", s.MasterURL, s.LogDir) }
