# Renders the stack for one host — the repository's quadlets and Caddyfile as they are, plus the
# site's drop-ins from templates/ — and installs it over SSH: the source (git archive of
# source_ref) for the image builds, the files into the service user's ~/.config, the secrets as
# Podman secrets, then the units are (re)started and the bridge's /healthz awaited.
# With counts (`bridges` > 1, `gateways`, `nats_nodes`) it is a site on one host: infra/site/'s
# template quadlets (oc-bridge@N, oc-gateway@N, oc-nats@N) replace the single bridge, Caddy
# spreads over the bridges, and the site's own secrets (NATS token and routes, pool secret, the
# desktop-credential key) are made once on the host, like the database password.
# To rotate a secret: tofu apply -replace=module.<name>.terraform_data.install

locals {
  repo_root   = abspath("${path.root}/${var.source_dir}")
  quadlet_dir = "${local.repo_root}/infra/quadlet"
  sudo        = var.ssh_user == "root" ? "" : "sudo "
  stage       = var.ssh_user == "root" ? "/root/.overlay-companion-install" : "/home/${var.ssh_user}/.overlay-companion-install"
  archive     = "${path.root}/.overlay-companion-source.tar.gz"

  site_dir = "${local.repo_root}/infra/site"
  site     = var.bridges > 1 || var.gateways > 0 || var.nats_nodes > 0
  site_templates = concat(
    ["oc-bridge@.container"],
    var.gateways > 0 ? ["oc-gateway@.container"] : [],
    var.nats_nodes > 0 ? ["oc-nats@.container"] : [],
  )

  desktop_units = ["oc-desktop.container", "oc-desktop.build"]
  base_units = merge(
    {
      for name in fileset(local.quadlet_dir, "*.{container,network,build}") :
      name => file("${local.quadlet_dir}/${name}")
      if(var.desktop_container || !contains(local.desktop_units, name)) && !(local.site && name == "oc-bridge.container")
    },
    local.site ? { for name in local.site_templates : name => file("${local.site_dir}/quadlet/${name}") } : {},
  )
  # Each kind of container, and the unit its drop-ins go to (a template's apply to every instance).
  kinds = concat(
    ["caddy", "bridge", "guacd", "postgres"],
    var.gateways > 0 ? ["gateway"] : [],
    var.nats_nodes > 0 ? ["nats"] : [],
    var.desktop_container ? ["desktop"] : [],
  )
  unit_of = {
    for kind in local.kinds :
    kind => contains(["gateway", "nats"], kind) || (kind == "bridge" && local.site) ? "oc-${kind}@" : "oc-${kind}"
  }
  bridge_services = local.site ? [for i in range(1, var.bridges + 1) : "bridge@${i}"] : ["bridge"]
  services = concat(
    ["caddy"],
    local.bridge_services,
    [for i in range(1, var.gateways + 1) : "gateway@${i}"],
    [for i in range(1, var.nats_nodes + 1) : "nats@${i}"],
    ["guacd", "postgres"],
    var.desktop_container ? ["desktop"] : [],
  )
  rdp_target = var.desktop_container ? "desktop:3389" : "${var.rdp_host}:${var.rdp_port}"
  # The pool (our gateways, then guacd; over TLS, infra/site/pool-pki.sh) and NATS the site's
  # bridges use; empty for one bridge.
  pool     = local.site ? join(",", concat([for i in range(1, var.gateways + 1) : "gateways://gateway-${i}:4822"], ["guacds://guacd:4822"])) : ""
  nats_url = join(",", [for i in range(1, var.nats_nodes + 1) : "nats://nats-${i}:4222"])

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
        site       = local.site
        upstreams  = join(" ", [for i in range(1, var.bridges + 1) : "bridge-${i}:8080"])
        requires   = join(" ", [for name in local.bridge_services : "oc-${name}.service"])
      })
      "${local.unit_of.bridge}.container.d/10-site.conf" = templatefile("${path.module}/templates/bridge-site.conf.tftpl", {
        pool           = local.pool
        nats_url       = local.nats_url
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
    local.site ? { "oc-guacd.container.d/30-pool-tls.conf" = file("${local.site_dir}/guacd-pool-tls.conf") } : {},
    {
      for kind in local.kinds :
      "${local.unit_of[kind]}.container.d/20-limits.conf" => templatefile("${path.module}/templates/limits.conf.tftpl", {
        memory = var.limits[kind].memory
        cpus   = var.limits[kind].cpus
      })
    },
  )

  # Paths below the service user's home.
  files = merge(
    { for name, text in merge(local.base_units, local.site_units) : ".config/containers/systemd/${name}" => text },
    { ".config/overlay-companion/Caddyfile" = file("${local.repo_root}/infra/Caddyfile") },
    var.nats_nodes > 0 ? { ".config/overlay-companion/nats.conf" = file("${local.site_dir}/nats.conf") } : {},
    local.site ? { ".config/overlay-companion/pool-pki.sh" = file("${local.site_dir}/pool-pki.sh") } : {},
  )

  install_script = templatefile("${path.module}/templates/install.sh.tftpl", {
    service_user = var.service_user
    domain       = var.domain
    files        = { for path, text in local.files : path => base64encode(text) }
    services     = local.services
    builds       = var.desktop_container ? ["oc-bridge", "oc-desktop"] : ["oc-bridge"]
    site         = local.site
    nats_nodes   = var.nats_nodes
    gateways     = var.gateways
    # The first bridge's loopback port (oc-bridge@1 publishes 8081).
    health_port = local.site ? 8081 : 8080
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
      condition     = alltrue([for kind in local.kinds : contains(keys(var.limits), kind)])
      error_message = "limits needs an entry for each of: caddy, bridge, guacd, postgres, desktop, gateway, nats."
    }
    precondition {
      condition     = var.bridges == 1 || var.nats_nodes > 0
      error_message = "Several bridges are one site through NATS: set nats_nodes (3 survives one node's loss)."
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
