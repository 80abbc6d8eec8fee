import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ARTIFACT_PREFIX } from '../shared/db/blocklist-artifact-store.ts';
import { arnName } from './scheduled-job.ts';

/** Everything the blocklist keeps in its bucket: the artifacts and the pointer to the current snapshot. */
const PREFIX = 'blocklist/';

export type BlocklistArtifactsProps = { removalPolicy?: RemovalPolicy };

/**
 * The hash-prefix blocklist's artifacts: a private bucket that only CloudFront reads (origin access
 * control, signed requests; no public access, no website endpoint), and a distribution that serves
 * `/blocklist/artifacts/<token>` from it. Artifacts are named by their content, so the CDN keeps
 * them as long as the `Cache-Control` they were stored with allows (a year), and every client after
 * the first is answered from the edge.
 */
export class BlocklistArtifacts extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** The CDN address the version route names in its artifact URLs. */
  readonly cdnUrl: string;

  constructor(scope: Construct, id: string, props: BlocklistArtifactsProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // A client follows the tokens the version names; an artifact no version has named for a month is never asked for.
      lifecycleRules: [{ prefix: ARTIFACT_PREFIX, expiration: Duration.days(30) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only derived, public-by-design artifacts (hash prefixes of blocked content) written by the blocklist functions under blocklist/; readers come through the distribution, whose requests its own logs would record.',
    });

    // Artifacts are immutable and named by content: cache by path alone, as long as the origin says.
    const cachePolicy = new CachePolicy(this, 'CachePolicy', {
      comment: 'Blocklist artifacts: immutable, keyed by path only',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.days(1),
      maxTtl: Duration.days(365),
      enableAcceptEncodingGzip: false,
      enableAcceptEncodingBrotli: false,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Hash-prefix blocklist artifacts',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy,
        // The artifacts are gzip already.
        compress: false,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    const cdn = Validations.of(this.distribution);
    cdn.acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'Wallets and extensions everywhere sync the blocklist; it holds only hash prefixes, so no country is excluded.',
    });
    cdn.acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'The distribution serves immutable, content-named static objects to anonymous clients by design; there is no input for a WAF to inspect, and its cost would exceed that of what it protects.',
    });
    cdn.acknowledge({
      id: 'AwsSolutions-CFR3',
      reason:
        'Requests carry only an artifact token that every client of the same version shares; access logs would record nothing about a client that the artifact does not already publish.',
    });
    cdn.acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'The distribution uses the default CloudFront certificate, with which CloudFront fixes the viewer TLS policy; a custom domain and certificate are a stage setting outside this stack.',
    });
    this.cdnUrl = `https://${this.distribution.distributionDomainName}`;
  }

  /**
   * Lets `fn` read (and, for `write`, store) the blocklist's objects, artifacts and the current
   * snapshot's pointer, and nothing else of the bucket: a policy of its own on the function's role,
   * so the role's other grants read as before.
   */
  grant(fn: NodejsFunction, access: 'read' | 'write') {
    const objects = this.bucket.arnForObjects(`${PREFIX}*`);
    const policy = new Policy(fn, 'BlocklistArtifactsPolicy', {
      statements: [
        new PolicyStatement({
          actions: access === 'write' ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject'],
          resources: [objects],
        }),
        // A missing object then answers NoSuchKey rather than AccessDenied.
        new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
      ],
    });
    fn.role?.attachInlinePolicy(policy);
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${arnName(this.bucket, policy)}>/${PREFIX}*]`,
      reason:
        'Artifacts are objects named by their token under the blocklist/ prefix; the grant covers that prefix only.',
    });
  }
}
