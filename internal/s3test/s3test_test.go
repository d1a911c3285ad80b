package s3test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The versitygw the object-storage tests use starts, stores an object and
// lists it back.
func TestVersity(t *testing.T) {
	s := StartVersity(t)
	s.CreateBucket(t, "bkt")
	if _, err := s.Client().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String("bkt"), Key: aws.String("x/y.txt"), Body: strings.NewReader("hello"),
	}); err != nil {
		t.Fatal(err)
	}
	got := s.List(t, "bkt", "")
	if len(got) != 1 || got[0].Key != "x/y.txt" || got[0].Size != 5 {
		t.Fatalf("listing: %+v", got)
	}
}

// weed mini starts on free ports with its Iceberg REST catalog answering
// for the table bucket, and serves S3 with the static credentials.
func TestWeed(t *testing.T) {
	s := StartWeed(t, "warehouse")
	if err := httpOK(context.Background(), s.CatalogURI+"/v1/config?warehouse=warehouse"); err != nil {
		t.Fatal(err)
	}
	s.CreateBucket(t, "plain")
	if got := s.List(t, "plain", ""); len(got) != 0 {
		t.Fatalf("a new bucket lists %+v", got)
	}
}
