package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Delete removes the entity with key k. Deleting an entity that does not exist is not
// an error.
func (c *Client) Delete(ctx context.Context, k Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	_, err := c.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.names.Entities),
		Key:       k.item(),
	})
	if err != nil {
		return fmt.Errorf("ryno: delete %s: %w", k, err)
	}
	return nil
}
