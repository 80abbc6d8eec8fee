import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { nagFindings, synthService } from '../fixtures/stack.ts';

const service = synthService('prod');
const { root } = service;
type Resource = { Type: string; Properties: Record<string, unknown> };
const only = (type: string): [string, Resource] => {
  const found = Object.entries(root.findResources(type)) as [string, Resource][];
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};

describe('the blocklist artifacts CDN', () => {
  it('serves the artifacts bucket over HTTPS only, GET and HEAD, uncompressed, through origin access control', () => {
    const [oacId] = only('AWS::CloudFront::OriginAccessControl');

    root.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Enabled: true,
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'redirect-to-https',
          AllowedMethods: ['GET', 'HEAD'],
          Compress: false,
          CachePolicyId: { Ref: Match.stringLikeRegexp('^BlocklistArtifactsCachePolicy') },
        }),
        Origins: [
          Match.objectLike({
            DomainName: { 'Fn::GetAtt': [Match.stringLikeRegexp('^BlocklistArtifactsBucket'), 'RegionalDomainName'] },
            OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
            S3OriginConfig: { OriginAccessIdentity: '' },
          }),
        ],
      }),
    });
    root.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      }),
    });
  });

  it('caches by path alone, for as long as the immutable artifacts allow', () => {
    root.hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: Match.objectLike({
        MaxTTL: 365 * 86_400,
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          QueryStringsConfig: { QueryStringBehavior: 'none' },
          HeadersConfig: { HeaderBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
        }),
      }),
    });
  });

  it('keeps the bucket private: all public access blocked, encrypted, TLS only, read by this distribution alone', () => {
    const [bucketId] = Object.entries(root.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('BlocklistArtifactsBucket'),
    ) as [string, Resource];
    const [distributionId] = only('AWS::CloudFront::Distribution');

    root.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: { Rules: [Match.objectLike({ Prefix: 'blocklist/artifacts/', ExpirationInDays: 30 })] },
    });
    root.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: {
              StringEquals: {
                'AWS:SourceArn': Match.objectLike({
                  'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: distributionId }])]),
                }),
              },
            },
          }),
        ]),
      },
    });
  });

  it('gives the version and confirm functions the bucket and the CDN address, and the artifact function the bucket only', () => {
    const functions = service.all.flatMap(
      (template) => Object.values(template.findResources('AWS::Lambda::Function')) as Resource[],
    );
    const environments = functions.map(
      (fn) => (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
    );
    const named = (variable: string) =>
      environments
        .filter((variables) => variable in variables)
        .map((variables) => variables.ROUTE_NAME ?? 'snapshot job')
        .sort();

    expect(named('BLOCKLIST_CDN_URL')).toEqual(['confirm-blocklist-prefixes', 'get-blocklist-version']);
    expect(named('BLOCKLIST_BUCKET')).toEqual([
      'confirm-blocklist-prefixes',
      'get-blocklist-artifact',
      'get-blocklist-keys',
      'get-blocklist-version',
      'snapshot job',
    ]);
  });

  it('lets the artifact function read the blocklist objects only, and the version function also store them', () => {
    const policies = service.all.flatMap(
      (template) => Object.values(template.findResources('AWS::IAM::Policy')) as Resource[],
    );
    const blocklistPolicies = policies
      .map((policy) => JSON.stringify(policy.Properties))
      .filter((text) => text.includes('/blocklist/*'));
    const actionsOf = (role: string) =>
      blocklistPolicies
        .filter((text) => text.includes(role))
        .map((text) =>
          (JSON.parse(text) as { PolicyDocument: { Statement: { Action: unknown }[] } }).PolicyDocument.Statement.map(
            (statement) => statement.Action,
          ),
        );

    expect(actionsOf('getblocklistartifactFunctionRole')).toEqual([['s3:GetObject', 's3:ListBucket']]);
    expect(actionsOf('getblocklistversionFunctionRole')).toEqual([[['s3:GetObject', 's3:PutObject'], 's3:ListBucket']]);
  });
});

describe('cdk-nag AwsSolutions over the stack with the blocklist CDN', () => {
  it('reports no unacknowledged finding', () => {
    expect(nagFindings('prod')).toEqual([]);
  });
});
