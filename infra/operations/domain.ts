/**
 * Custom domains, as configuration (EnvironmentConfig.domain): integrators get
 * `https://api.example.com/api/v1/...` and `https://auth.api.example.com/oauth2/token` and never
 * hard-code an execute-api or amazoncognito.com URL, so the service can move (region, account,
 * a new API) behind the same names.
 *
 * - API: a regional API Gateway domain name with an ACM certificate (created here, validated by
 *   DNS in the hosted zone), TLS 1.2 minimum, mapped at the root to the stage, and a Route 53
 *   alias. The stack then disables the execute-api endpoint, so WAF and TLS policy cannot be
 *   bypassed through it.
 * - Token endpoint: a Cognito custom domain (served by CloudFront, hence a us-east-1 certificate
 *   given in the configuration) and its Route 53 alias. Cognito requires the parent name to
 *   resolve first: the API's record is created before it.
 *
 * No lookups: the hosted zone is named by id and name, so synthesis stays offline.
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { DomainConfig } from '../config/environments.ts';

export interface CustomDomainsProps {
  readonly domain: DomainConfig;
  readonly api: apigw.RestApi;
  readonly userPool: cognito.UserPool;
}

export class CustomDomains extends Construct {
  readonly apiDomain: apigw.DomainName;
  readonly authDomain: cognito.UserPoolDomain;
  /** `https://<apiDomainName>`: the base_url integrators use. */
  readonly apiBaseUrl: string;
  readonly tokenEndpoint: string;

  constructor(scope: Construct, id: string, props: CustomDomainsProps) {
    super(scope, id);
    const { domain } = props;
    const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: domain.hostedZoneId, zoneName: domain.hostedZoneName });

    const certificate = new acm.Certificate(this, 'ApiCertificate', {
      domainName: domain.apiDomainName,
      validation: acm.CertificateValidation.fromDns(zone),
    });
    this.apiDomain = new apigw.DomainName(this, 'ApiDomain', {
      domainName: domain.apiDomainName,
      certificate,
      endpointType: apigw.EndpointType.REGIONAL,
      securityPolicy: apigw.SecurityPolicy.TLS_1_2,
    });
    // At the root: the routes already carry the version (/api/v1), and the stage name stays out of URLs.
    this.apiDomain.addBasePathMapping(props.api, { stage: props.api.deploymentStage, attachToStage: false });
    const apiRecord = new route53.ARecord(this, 'ApiAlias', {
      zone,
      recordName: domain.apiDomainName,
      target: route53.RecordTarget.fromAlias(new targets.ApiGatewayDomain(this.apiDomain)),
    });

    // Here, not under the user pool (Data stack): it waits for the API's record, in this stack.
    this.authDomain = new cognito.UserPoolDomain(this, 'AuthDomain', {
      userPool: props.userPool,
      customDomain: {
        domainName: domain.authDomainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'AuthCertificate', domain.authCertificateArn),
      },
    });
    this.authDomain.node.addDependency(apiRecord);
    new route53.ARecord(this, 'AuthAlias', {
      zone,
      recordName: domain.authDomainName,
      target: route53.RecordTarget.fromAlias(new targets.UserPoolDomainTarget(this.authDomain)),
    });

    this.apiBaseUrl = `https://${domain.apiDomainName}`;
    this.tokenEndpoint = `https://${domain.authDomainName}/oauth2/token`;
  }
}
