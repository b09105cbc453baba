package testservers

import (
	"context"
	"testing"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Jobs lists the jobs the job service at endpoint knows under name. A
// GetJobs call can fail while the job server is busy starting a job on a
// loaded machine; Jobs calls again for 15 seconds before it fails the test.
func Jobs(t testing.TB, endpoint, name string) []*jobpb.JobInfo {
	t.Helper()
	cc, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	var resp *jobpb.GetJobsResponse
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err = jobpb.NewJobServiceClient(cc).GetJobs(ctx, &jobpb.GetJobsRequest{})
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GetJobs at %s: %v", endpoint, err)
		}
	}
	var jobs []*jobpb.JobInfo
	for _, j := range resp.GetJobInfo() {
		if j.GetJobName() == name {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// JobStates counts the jobs named name on the job service at endpoint by
// state.
func JobStates(t testing.TB, endpoint, name string) map[jobpb.JobState_Enum]int {
	t.Helper()
	states := map[jobpb.JobState_Enum]int{}
	for _, j := range Jobs(t, endpoint, name) {
		states[j.GetState()]++
	}
	return states
}
