package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionInfo is what `tablekit version` prints.
type versionInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Revision, RevisionTime and Modified come from the version control
	// checkout the binary was built in, when the build recorded them.
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revisionTime,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	// DynamoDBSDK is the AWS SDK's DynamoDB client version the binary was
	// built with: what an AWS support case asks for.
	DynamoDBSDK string `json:"dynamodbSdk,omitempty"`
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print tablekit's module version and how this binary was built",
		help: `Prints the module version (a tag such as v0.1.0 when installed with
'go install github.com/tablekit/tablekit/cmd/tablekit@v0.1.0', "(devel)" or a
pseudo-version when built from a checkout), the Go version and platform, the
version control revision the build recorded, and the AWS SDK's DynamoDB
client version.`,
		setup: func(fs *flag.FlagSet, a *app) runner {
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("version takes no arguments")
				}
				v := buildVersion()
				return a.emit(v, func(w io.Writer) {
					fmt.Fprintf(w, "tablekit\t%s %s\ngo\t%s %s\n", v.Module, v.Version, v.GoVersion, v.Platform)
					if v.Revision != "" {
						mod := ""
						if v.Modified {
							mod = " (with uncommitted changes)"
						}
						fmt.Fprintf(w, "revision\t%s %s%s\n", v.Revision, v.RevisionTime, mod)
					}
					if v.DynamoDBSDK != "" {
						fmt.Fprintf(w, "aws sdk dynamodb\t%s\n", v.DynamoDBSDK)
					}
				})
			}
		},
	}
}

// buildVersion reads the build information the Go toolchain embeds.
func buildVersion() versionInfo {
	v := versionInfo{Module: "github.com/tablekit/tablekit", Version: "(unknown)",
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Path != "" {
		v.Module = info.Main.Path
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.RevisionTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/aws/aws-sdk-go-v2/service/dynamodb" {
			v.DynamoDBSDK = dep.Version
		}
	}
	return v
}
