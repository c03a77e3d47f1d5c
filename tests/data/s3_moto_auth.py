# Turns signature checking on or off in a running moto server (server mode skips it
# unless asked), so ember's SigV4 signing is verified by botocore's own signer.
#   python3 s3_moto_auth.py <endpoint> on   -> creates an IAM user allowed s3:*, prints
#                                              "<access key id> <secret>", enables auth
#   python3 s3_moto_auth.py <endpoint> off  -> disables auth again
import json
import sys
import urllib.request

import boto3

endpoint, mode = sys.argv[1], sys.argv[2]


def reset_auth(count):
    req = urllib.request.Request(endpoint + "/moto-api/reset-auth", data=str(count).encode(), method="POST",
                                 headers={"Content-Type": "text/plain"})  # not form data: moto reads the raw body
    urllib.request.urlopen(req).read()


if mode == "off":
    reset_auth(float("inf"))
    sys.exit(0)

iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam.create_user(UserName="ember-s3-test")
iam.put_user_policy(UserName="ember-s3-test", PolicyName="s3-all", PolicyDocument=json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="ember-s3-test")["AccessKey"]
reset_auth(0)
print(key["AccessKeyId"], key["SecretAccessKey"], flush=True)
