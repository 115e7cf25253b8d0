package rynotest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/rynotest"
)

// A client of the package uses the credentials and region of the environment, as
// the SDK's default configuration does, and the package's own where it has none.
func TestAPITakesCredentialsAndRegionFromTheEnvironment(t *testing.T) {
	tests := []struct {
		name                            string
		env                             map[string]string
		wantKey, wantSecret, wantRegion string
	}{
		{"none", nil, rynotest.AccessKey, rynotest.SecretKey, rynotest.Region},
		{"all", map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "eu-west-1"}, "k", "s", "eu-west-1"},
		{"default region", map[string]string{"AWS_DEFAULT_REGION": "eu-north-1"}, rynotest.AccessKey, rynotest.SecretKey, "eu-north-1"},
		{"AWS_REGION first", map[string]string{"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "eu-north-1"}, rynotest.AccessKey, rynotest.SecretKey, "eu-west-1"},
		{"a key without its secret", map[string]string{"AWS_ACCESS_KEY_ID": "k"}, rynotest.AccessKey, rynotest.SecretKey, rynotest.Region},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"} {
				t.Setenv(name, tt.env[name])
			}
			o := rynotest.API("http://localhost:8000").Options()
			require.Equal(t, tt.wantRegion, o.Region)
			creds, err := o.Credentials.Retrieve(context.Background())
			require.NoError(t, err)
			require.Equal(t, tt.wantKey, creds.AccessKeyID)
			require.Equal(t, tt.wantSecret, creds.SecretAccessKey)
		})
	}
}
