/**
 * The credential's type name. n8n saves it with every credential and with every node that uses one, so
 * it never changes; the credential, both nodes and the transport all read it from here.
 */
export const CREDENTIAL_TYPE = 'businessMessagingApi';
/** The name both nodes give the credential's Test method (`testedBy`; credentials/credentialTest.ts). */
export const CREDENTIAL_TEST = 'businessMessagingApiTest';
