// Package lightimports holds one test: importing a store, the change feed,
// the fake, the jobs analytics view, observe, iam (and its policies) or
// datamodel builds neither the S3 client nor the AWS SDK's configuration
// loader. Those belong to the driver and connection packages
// (blobstore/s3blob, connect), which only programs that reach S3 or load
// an AWS configuration import, as gocloud.dev keeps s3blob apart from blob.
package lightimports
