// The two discovery documents: protected-resource metadata (RFC 9728) for a project's MCP URL, and authorization
// server metadata (RFC 8414) for its issuer. Only what the board does is advertised.
import { issuerOf, resourceOf, SCOPE, type OAuthBase } from './urls.js';

export function protectedResourceMetadata(origin: string, base: OAuthBase, name: string) {
  return {
    resource: resourceOf(origin, base),
    authorization_servers: [issuerOf(origin, base)],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: name,
  };
}

export function authorizationServerMetadata(origin: string, base: OAuthBase, registration: boolean) {
  const endpoint = (name: string) => `${origin}${base.prefix}/oauth/${name}`;
  return {
    issuer: issuerOf(origin, base),
    authorization_endpoint: endpoint('authorize'),
    token_endpoint: endpoint('token'),
    ...(registration && { registration_endpoint: endpoint('register') }),
    scopes_supported: [SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
