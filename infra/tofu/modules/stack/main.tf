# Renders the stack for one host — the repository's quadlets and Caddyfile as they are, plus the
# site's drop-ins from templates/ — and installs it over SSH: the source (git archive of
# source_ref) for the image builds, the files into the service user's ~/.config, the secrets as
# Podman secrets, then the units are (re)started and the bridge's /healthz awaited.
# To rotate a secret: tofu apply -replace=module.<name>.terraform_data.install

locals {
  repo_root   = abspath("${path.root}/${var.source_dir}")
  quadlet_dir = "${local.repo_root}/infra/quadlet"
  sudo        = var.ssh_user == "root" ? "" : "sudo "
  stage       = var.ssh_user == "root" ? "/root/.overlay-companion-install" : "/home/${var.ssh_user}/.overlay-companion-install"
  archive     = "${path.root}/.overlay-companion-source.tar.gz"

  desktop_units = ["oc-desktop.container", "oc-desktop.build"]
  base_units = {
    for name in fileset(local.quadlet_dir, "*.{container,network,build}") :
    name => file("${local.quadlet_dir}/${name}")
    if var.desktop_container || !contains(local.desktop_units, name)
  }
  services   = concat(["caddy", "bridge", "guacd", "postgres"], var.desktop_container ? ["desktop"] : [])
  rdp_target = var.desktop_container ? "desktop:3389" : "${var.rdp_host}:${var.rdp_port}"

  # Optional secrets become Podman secrets only when set; the bridge's drop-in names the same set.
  optional_secrets = {
    oc_oidc_client_secret = var.oidc_client_secret
    oc_admin_password     = var.admin_password
    oc_metrics_token      = var.metrics_token
  }
  secret_names = concat(["oc_rdp_password"], [for name, value in local.optional_secrets : name if value != ""])

  site_units = merge(
    {
      "oc-caddy.container.d/10-site.conf" = templatefile("${path.module}/templates/caddy-site.conf.tftpl", {
        domain     = var.domain
        acme_email = var.acme_email
      })
      "oc-bridge.container.d/10-site.conf" = templatefile("${path.module}/templates/bridge-site.conf.tftpl", {
        domain         = var.domain
        rdp_target     = local.rdp_target
        rdp_user       = var.rdp_user
        oidc_issuer    = var.oidc_issuer
        oidc_client_id = var.oidc_client_id
        admin_user     = var.admin_user
        secret_names   = local.secret_names
      })
    },
    var.desktop_container ? {} : {
      "oc-guacd.container.d/10-rdp.conf" = file("${path.module}/templates/guacd-rdp.conf")
    },
    {
      for service in local.services :
      "oc-${service}.container.d/20-limits.conf" => templatefile("${path.module}/templates/limits.conf.tftpl", {
        memory = var.limits[service].memory
        cpus   = var.limits[service].cpus
      })
    },
  )

  # Paths below the service user's home.
  files = merge(
    { for name, text in merge(local.base_units, local.site_units) : ".config/containers/systemd/${name}" => text },
    { ".config/overlay-companion/Caddyfile" = file("${local.repo_root}/infra/Caddyfile") },
  )

  install_script = templatefile("${path.module}/templates/install.sh.tftpl", {
    service_user = var.service_user
    domain       = var.domain
    files        = { for path, text in local.files : path => base64encode(text) }
    services     = local.services
    builds       = var.desktop_container ? ["oc-bridge", "oc-desktop"] : ["oc-bridge"]
  })

  # name, a space, the value in base64 — one secret a line, read by install.sh.
  secrets_file = join("", [
    for name, value in merge({ oc_rdp_password = var.rdp_password }, local.optional_secrets) :
    "${name} ${base64encode(value)}\n" if value != ""
  ])
}

resource "terraform_data" "install" {
  triggers_replace = [sha256(jsonencode(local.files)), sha256(local.install_script), var.source_ref, var.host]

  lifecycle {
    precondition {
      condition     = var.desktop_container || var.rdp_host != ""
      error_message = "Set rdp_host (e.g. the Silverblue VM's address) when desktop_container is false."
    }
    precondition {
      condition     = !var.desktop_container || var.rdp_user == "desktop"
      error_message = "The bundled desktop container's user is \"desktop\": keep rdp_user = \"desktop\" with desktop_container."
    }
    precondition {
      condition     = (var.admin_user == "") == (var.admin_password == "")
      error_message = "Set admin_user and admin_password together, or neither (then the bridge prints a setup link)."
    }
    precondition {
      condition     = var.oidc_issuer == "" || var.oidc_client_id != ""
      error_message = "oidc_issuer needs oidc_client_id."
    }
    precondition {
      condition     = alltrue([for service in local.services : contains(keys(var.limits), service)])
      error_message = "limits needs an entry for each of: caddy, bridge, guacd, postgres, desktop."
    }
  }

  connection {
    type        = "ssh"
    host        = var.host
    port        = var.ssh_port
    user        = var.ssh_user
    private_key = var.ssh_private_key == "" ? null : var.ssh_private_key
    agent       = var.ssh_private_key == ""
  }

  provisioner "local-exec" {
    command = "git -C '${local.repo_root}' archive --format=tar.gz --output='${local.archive}' '${var.source_ref}'"
  }

  provisioner "remote-exec" {
    inline = ["umask 077 && mkdir -p '${local.stage}' && chmod 0700 '${local.stage}'"]
  }

  provisioner "file" {
    source      = local.archive
    destination = "${local.stage}/source.tar.gz"
  }

  provisioner "file" {
    content     = local.secrets_file
    destination = "${local.stage}/secrets"
  }

  provisioner "file" {
    content     = local.install_script
    destination = "${local.stage}/install.sh"
  }

  provisioner "remote-exec" {
    inline = ["${local.sudo}sh '${local.stage}/install.sh' '${local.stage}'"]
  }
}
