import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SAMPLES_MESSAGE } from '../../shared/domain/detections/check-samples.ts';
import { CLASS_EXPRESSIONS, SCHEDULE_CLASSES } from '../../shared/domain/detections/schedules.ts';
import { synthService } from '../fixtures/stack.ts';

const prod = synthService('prod');
const check = prod.areas.CheckRoutes;

describe('detection runs in AWS', () => {
  it('ticks the scheduler from one schedule per schedule class, none per config', () => {
    const schedules = Object.values(prod.root.findResources('AWS::Scheduler::Schedule')).filter((schedule) =>
      JSON.stringify(schedule).includes('scheduleClass'),
    );

    expect(schedules).toHaveLength(SCHEDULE_CLASSES.length);
    for (const scheduleClass of SCHEDULE_CLASSES) {
      prod.root.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: CLASS_EXPRESSIONS[scheduleClass],
        Target: Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DetectionRunsScheduleFunction'), 'Arn'] },
          Input: Match.stringLikeRegexp(`"scheduleClass":"${scheduleClass}"`),
        }),
      });
    }
  });

  it('runs each queued run from a queue with a dead-letter queue, one message an invocation', () => {
    prod.root.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^DetectionRunsRunFunction') },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    prod.root.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DetectionRunsDeadLetterQueue'), 'Arn'] },
      }),
    });
  });

  it("subscribes the sample worker to the check's sample lines only, after its permission", () => {
    expect(check).toBeDefined();
    const filters = Object.values(check?.findResources('AWS::Logs::SubscriptionFilter') ?? {});

    expect(filters).toHaveLength(1);
    expect(filters[0]).toMatchObject({
      Properties: { FilterPattern: `{ $.message = "${SAMPLES_MESSAGE}" }` },
      DependsOn: [expect.stringMatching(/^CheckSamplesPermission/)],
    });
    check?.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'logs.amazonaws.com' });
  });
});
