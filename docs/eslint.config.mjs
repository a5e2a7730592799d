// Not linted with n8n's rules: this code runs on plain Node, never inside n8n (CONTRIBUTING.md, "Lint").
export default [{ ignores: ['**'] }];
