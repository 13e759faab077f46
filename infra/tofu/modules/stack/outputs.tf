output "url" {
  description = "Where people open the viewer."
  value       = "https://${var.domain}/"
}

output "mcp_url" {
  description = "The MCP endpoint for AI clients (with a token made on /config)."
  value       = "https://${var.domain}/mcp"
}

output "oidc_redirect_uri" {
  description = "The redirect URI to register at the OpenID provider."
  value       = "https://${var.domain}/api/auth/oidc/callback"
}

output "files" {
  description = "Paths (below the service user's home) of the files installed."
  value       = sort(keys(local.files))
}
