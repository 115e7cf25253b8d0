package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rynodb/rynodb/examples/internal/catalog"
)

func TestConfigFrom(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    config
		wantErr string
	}{
		{"environment", nil, map[string]string{catalog.EnvPrefix: "catalog", catalog.EnvEndpoint: "http://localhost:8000"},
			config{addr: "localhost:8080", prefix: "catalog", endpoint: "http://localhost:8000"}, ""},
		{"flags before the environment", []string{"-addr", ":9000", "-prefix", "flagged"}, map[string]string{catalog.EnvPrefix: "catalog"},
			config{addr: ":9000", prefix: "flagged"}, ""},
		{"cursor key", nil, map[string]string{catalog.EnvPrefix: "catalog", catalog.EnvCursorKey: "AAEC"},
			config{addr: "localhost:8080", prefix: "catalog", cursorKey: []byte{0, 1, 2}}, ""},
		{"no prefix", nil, nil, config{}, "no table prefix"},
		{"cursor key not base64", nil, map[string]string{catalog.EnvPrefix: "catalog", catalog.EnvCursorKey: "not base64!"}, config{}, catalog.EnvCursorKey + " is not base64"},
		{"unknown flag", []string{"-port", "80"}, map[string]string{catalog.EnvPrefix: "catalog"}, config{}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configFrom(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.addr != tt.want.addr || got.prefix != tt.want.prefix || got.endpoint != tt.want.endpoint ||
				!bytes.Equal(got.cursorKey, tt.want.cursorKey) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
