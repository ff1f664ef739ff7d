package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// startRun runs the command's server on a free port and returns its URL and
// a function that stops it and returns run's error.
func startRun(t *testing.T) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	_, url, ok := strings.Cut(strings.TrimSpace(line), " at ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q, want the endpoint's URL", line)
	}
	return url, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("run did not return after its context ended")
		}
	}
}

func TestRunServesDynamoDBAtThePrintedURLAndStopsCleanly(t *testing.T) {
	url, stop := startRun(t)
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "eu-west-1", // any region and any credentials work
		Credentials:  credentials.NewStaticCredentialsProvider("any", "thing", ""),
	})
	ctx := context.Background()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 || out.TableNames[0] != "jobs" {
		t.Fatalf("ListTables = %v, %v", out, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("run returned %v after a clean shutdown", err)
	}
	if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
		t.Error("the endpoint still answers after shutdown")
	}
}

func TestRunFailsOnAnAddressInUse(t *testing.T) {
	url, stop := startRun(t)
	defer stop()
	err := run(context.Background(), strings.TrimPrefix(url, "http://"), io.Discard)
	if err == nil {
		t.Fatal("a second server on the same address started")
	}
}
