// Package s3test starts throwaway S3 servers for tests that run magmalake on
// object storage: versitygw (S3 over a plain directory, paired with a SQL
// catalog) and SeaweedFS's `weed mini` (S3 plus an Iceberg REST catalog).
// Both listen on free 127.0.0.1 ports, keep their data in t.TempDir() and
// stop when the test ends. .ci/s3tools.sh builds them and exports
// MAGMALAKE_VERSITYGW and MAGMALAKE_WEED; a missing binary skips the test, or
// fails it under MAGMALAKE_REQUIRE_TOOLS=1.
//
// Importing the package sets AWS_EC2_METADATA_DISABLED=true in the test
// process, and every server it starts gets it too with static credentials:
// the AWS SDK must never reach for the EC2 metadata address from a test.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/magmalake/magmalake/internal/testenv"
)

// Static credentials every server is started with.
const (
	AccessKey = "magmalake-test"
	SecretKey = "magmalake-test-secret"
	Region    = "us-east-1"
)

func init() {
	// Before any test builds an AWS config: with this set the SDK never
	// tries the instance metadata service for credentials or a region.
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// Env is the environment of a process that talks to the servers with the
// AWS SDK (magmalake itself, started by an end-to-end test): the static
// credentials, the region and no instance metadata, on top of environ with
// any other AWS_ settings removed.
func Env(environ []string) []string {
	out := make([]string, 0, len(environ)+4)
	for _, kv := range environ {
		if len(kv) < 4 || kv[:4] != "AWS_" {
			out = append(out, kv)
		}
	}
	return append(out,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ACCESS_KEY_ID="+AccessKey,
		"AWS_SECRET_ACCESS_KEY="+SecretKey,
		"AWS_REGION="+Region)
}

// Server is one running S3 server.
type Server struct {
	Endpoint   string // http://127.0.0.1:port of the S3 API
	CatalogURI string // the Iceberg REST catalog (weed only)
	Dir        string // the server's data and log
	log        string
	client     *s3.Client
}

// Props are iceberg-go's S3 file IO properties (catalog properties) for
// this server: endpoint, static credentials, region, path-style requests.
func (s *Server) Props() map[string]string {
	return map[string]string{
		"s3.endpoint":                 s.Endpoint,
		"s3.region":                   Region,
		"s3.access-key-id":            AccessKey,
		"s3.secret-access-key":        SecretKey,
		"s3.force-virtual-addressing": "false",
	}
}

// RESTProps are the catalog properties of weed's REST catalog serving the
// table bucket warehouse, S3 properties included.
func (s *Server) RESTProps(warehouse string) map[string]string {
	p := s.Props()
	p["type"] = "rest"
	p["uri"] = s.CatalogURI
	p["warehouse"] = warehouse
	p["credential"] = AccessKey + ":" + SecretKey
	return p
}

// Client is an S3 client of this server, for checking a bucket's contents
// independently of magmalake.
func (s *Server) Client() *s3.Client { return s.client }

// CreateBucket creates bucket name.
func (s *Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	if _, err := s.client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
}

// Object is one object of a bucket listing.
type Object struct {
	Key  string
	Size int64
}

// List lists every object of bucket under prefix, sorted by key.
func (s *Server) List(t testing.TB, bucket, prefix string) []Object {
	t.Helper()
	objs, err := s.ListErr(context.Background(), bucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// ListErr is List returning its error.
func (s *Server) ListErr(ctx context.Context, bucket, prefix string) ([]Object, error) {
	var out []Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list s3://%s/%s: %w", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size)})
		}
	}
	slices.SortFunc(out, func(a, b Object) int {
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return out, nil
}

// Keys lists the keys of bucket under prefix, sorted.
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	var out []string
	for _, o := range s.List(t, bucket, prefix) {
		out = append(out, o.Key)
	}
	return out
}

// LogTail is the end of the server's log, for failure messages.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// StartVersity starts versitygw's posix backend on a fresh directory.
func StartVersity(t testing.TB) *Server {
	t.Helper()
	bin := binary(t, "MAGMALAKE_VERSITYGW", "versitygw")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	port := testenv.FreePort(t)
	s := newServer(t, dir, port)
	start(t, s, bin, []string{"--port", "127.0.0.1:" + strconv.Itoa(port),
		"--access", AccessKey, "--secret", SecretKey, "posix", data}, nil)
	return s
}

// StartWeed starts `weed mini` (master, volume, filer, S3 and the Iceberg
// REST catalog in one process) with the S3 Tables bucket warehouse, every
// port it opens chosen free. Startup takes a few seconds.
func StartWeed(t testing.TB, tableBucket string) *Server {
	t.Helper()
	bin := binary(t, "MAGMALAKE_WEED", "weed")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	ports := testenv.FreePorts(t, 11)
	s := newServer(t, dir, ports[0])
	s.CatalogURI = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	args := []string{"-logdir=" + dir, "mini", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.telemetry=false", "-webdav=false", "-admin.ui=false",
		"-tableBucket=" + tableBucket,
		"-s3.port=" + p(0), "-s3.port.iceberg=" + p(1), "-s3.port.grpc=" + p(2), "-s3.port.lance=0",
		"-master.port=" + p(3), "-master.port.grpc=" + p(4),
		"-volume.port=" + p(5), "-volume.port.grpc=" + p(6),
		"-filer.port=" + p(7), "-filer.port.grpc=" + p(8),
		"-admin.port=" + p(9), "-admin.port.grpc=" + p(10), "-admin.port.legacy=0",
	}
	start(t, s, bin, args, func(ctx context.Context) error {
		// The catalog answers before the table bucket exists; weed prints
		// its welcome once the bucket is created.
		if err := httpOK(ctx, s.CatalogURI+"/v1/config?warehouse="+tableBucket); err != nil {
			return err
		}
		if log, _ := os.ReadFile(s.log); !bytes.Contains(log, []byte(weedReady)) {
			return errors.New("weed has not announced it is ready")
		}
		return nil
	})
	return s
}

// weedReady is what weed mini prints once every component runs and the
// table buckets exist.
const weedReady = "All enabled components are running"

func newServer(t testing.TB, dir string, port int) *Server {
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	client := s3.New(s3.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		UsePathStyle: true,
		// Servers other than AWS do not all speak the newest checksums.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return &Server{Endpoint: endpoint, Dir: dir, log: filepath.Join(dir, "server.log"), client: client}
}

// start runs bin with args until the test ends and waits until the S3 API
// answers ListBuckets (and ready, when given, succeeds), polling with a short
// backoff; the process's early exit or a minute without an answer fails t.
func start(t testing.TB, s *Server, bin string, args []string, ready func(context.Context) error) {
	t.Helper()
	logf, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = Env(os.Environ())
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
	}
	t.Cleanup(stop)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	delay := 5 * time.Millisecond
	for {
		err := s.ping(ctx)
		if err == nil && ready != nil {
			err = ready(ctx)
		}
		if err == nil {
			return
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it was ready (%v): %v\n%s", filepath.Base(bin), waitErr, err, s.LogTail())
		case <-ctx.Done():
			stop()
			t.Fatalf("%s not ready after a minute: %v\n%s", filepath.Base(bin), err, s.LogTail())
		case <-time.After(delay):
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
}

func (s *Server) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := s.client.ListBuckets(ctx, &s3.ListBucketsInput{})
	return err
}

func httpOK(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// binary finds a server program: envVar's path, else .cache/bin under the
// repository root (where .ci/s3tools.sh puts it), else PATH.
func binary(t testing.TB, envVar, name string) string {
	t.Helper()
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			testenv.Missing(t, "%s=%s: %v (run .ci/s3tools.sh)", envVar, p, err)
		}
		return p
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), "..", "..", ".cache", "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	testenv.Missing(t, "%s not found: set %s or run .ci/s3tools.sh", name, envVar)
	return ""
}
